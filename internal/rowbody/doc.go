// Package rowbody reads the rows of an HTTP request body, chunk by chunk, for the
// score endpoint of udocc's HTTP handler: JSON ({"rows": [[…], …]}, each row an array
// of numbers or an object keyed by column name) or CSV with a header. A body is never
// held whole: Reader.Next fills a caller's buffer of float32 rows and the caller scores
// them before asking for more, so memory follows the chunk, not the body.
//
// Every value is parsed as package data parses a table's cell (strconv.ParseFloat, then
// float32), so a row sent to the server scores as the same row read from a file. Bad
// input is an *Error naming the 1-based row and the column; the body's own read errors
// (a size limit, a deadline) are returned as they are, wrapped.
//
// It is not for files: package data reads those.
package rowbody
