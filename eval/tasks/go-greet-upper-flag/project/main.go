package main

import (
	"flag"
	"fmt"
)

func main() {
	name := flag.String("name", "world", "who to greet")
	flag.Parse()
	fmt.Println(greeting(*name))
}

func greeting(name string) string {
	return fmt.Sprintf("Hello, %s!", name)
}
