// Command exported counts the exported names of Go packages (non-test files): top-level
// funcs, types, vars and consts, and methods on exported types; struct fields are
// counted apart. It lists the names without a doc comment. Issue 41's bar is at most
// 120 outside internal/: go run ./scripts/exported . data metrics
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
)

func main() {
	total, fieldsTotal := 0, 0
	for _, dir := range os.Args[1:] {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
		if err != nil {
			panic(err)
		}
		for _, p := range pkgs {
			var names, undoc []string
			fields := 0
			add := func(n string, doc *ast.CommentGroup) {
				names = append(names, n)
				if doc == nil {
					undoc = append(undoc, n)
				}
			}
			for _, f := range p.Files {
				for _, d := range f.Decls {
					switch d := d.(type) {
					case *ast.FuncDecl:
						if !d.Name.IsExported() {
							continue
						}
						if d.Recv != nil {
							t := d.Recv.List[0].Type
							if s, ok := t.(*ast.StarExpr); ok {
								t = s.X
							}
							if ix, ok := t.(*ast.IndexExpr); ok {
								t = ix.X
							}
							id := t.(*ast.Ident)
							if !id.IsExported() {
								continue
							}
							add(id.Name+"."+d.Name.Name, d.Doc)
						} else {
							add(d.Name.Name, d.Doc)
						}
					case *ast.GenDecl:
						for _, s := range d.Specs {
							switch s := s.(type) {
							case *ast.TypeSpec:
								if !s.Name.IsExported() {
									continue
								}
								doc := s.Doc
								if doc == nil && len(d.Specs) == 1 {
									doc = d.Doc
								}
								add(s.Name.Name, doc)
								if st, ok := s.Type.(*ast.StructType); ok {
									for _, fl := range st.Fields.List {
										for _, n := range fl.Names {
											if n.IsExported() {
												fields++
											}
										}
									}
								}
							case *ast.ValueSpec:
								for _, n := range s.Names {
									if !n.IsExported() {
										continue
									}
									doc := s.Doc
									if doc == nil {
										doc = s.Comment
									}
									if doc == nil && (len(d.Specs) == 1 || d.Lparen.IsValid()) {
										doc = d.Doc
									}
									add(n.Name, doc)
								}
							}
						}
					}
				}
			}
			sort.Strings(names)
			fmt.Printf("%s (%s): %d exported names (+%d struct fields)\n", dir, p.Name, len(names), fields)
			if os.Getenv("LIST") != "" {
				fmt.Printf("  %s\n", strings.Join(names, " "))
			}
			if len(undoc) > 0 {
				fmt.Printf("  without doc comment: %s\n", strings.Join(undoc, " "))
			}
			total += len(names)
			fieldsTotal += fields
		}
	}
	fmt.Printf("total: %d exported names (+%d struct fields)\n", total, fieldsTotal)
}
