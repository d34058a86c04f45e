// Package regfile opens the files udocc reads by name from a folder it did not make (a
// saved model's model.json and network files): only regular files, so that a name that
// leads to a device (/dev/zero), a named pipe or a socket is refused at once instead of
// being read forever or blocking the open, and only up to a size the caller expects.
//
// Start from Open or ReadFile.
package regfile
