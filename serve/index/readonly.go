package index

// ReadOnly ends the message of every write and connection the server
// refuses, and describes the refusal in the OpenAPI stand-ins.
const ReadOnly = "bundlectl serves a read-only support bundle"
