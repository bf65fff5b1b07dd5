package main

import (
	"flag"
	"fmt"
	"strings"
)

func main() {
	name := flag.String("name", "world", "who to greet")
	upper := flag.Bool("upper", false, "print the greeting in upper case")
	flag.Parse()
	text := greeting(*name)
	if *upper {
		text = strings.ToUpper(text)
	}
	fmt.Println(text)
}

func greeting(name string) string {
	return fmt.Sprintf("Hello, %s!", name)
}
