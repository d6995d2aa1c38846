// Command bundlectl upgrades, inspects and serves Kubernetes support bundles.
package main

import (
	"os"

	"github.com/bundlectl/bundlectl/cmd/bundlectl/app"
)

func main() {
	os.Exit(app.Main(os.Args[1:], app.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
