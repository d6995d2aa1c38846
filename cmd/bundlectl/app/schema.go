package app

import "github.com/bundlectl/bundlectl/contract"

func schemaVersion() string { return contract.SchemaVersion }
