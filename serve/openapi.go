package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bundlectl/bundlectl/serve/index"
)

// OpenAPI is what `kubectl explain` reads, and what kubectl apply, create
// and edit download before they send anything (to learn whether the
// server validates fields, or to validate the object themselves). The
// server answers as kube-apiserver's OpenAPI handlers (k8s.io/kube-openapi
// handler3 and handler) do:
//
//   - /openapi/v3 is the index: every document's path with a
//     serverRelativeURL carrying the SHA-512 of the document, which
//     client-go caches by;
//   - /openapi/v3/<path> is each document, in JSON or in protobuf;
//   - /openapi/v2 is the bundle's v2 document, in JSON or in protobuf
//     (kubectl 1.27 and 1.28 download it, as protobuf, before explain and
//     apply), and a 404 when the bundle has none: never a stand-in, which
//     an older kubectl would take for the schema of every kind.
//
// The documents are the bundle's (_meta/openapi), byte for byte, so that
// the hashes are the live server's. A group version discovery advertises
// without a document (a bundle from before OpenAPI was collected, a
// version the upgrade's release does not know) gets a stand-in whose
// kinds are described as not collected and whose resources declare a
// PATCH taking fieldValidation: kubectl then sends its write, and the
// write gets the clear 405.

// The media types of the OpenAPI documents, as kube-openapi names them:
// clients ask for the @ form and get the dotted form back.
const (
	openAPIV2ProtoType           = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	openAPIV2ProtoTypeDeprecated = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	openAPIV3ProtoType           = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	openAPIV3ProtoTypeDeprecated = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

// serveOpenAPI answers /openapi/v3, its documents and /openapi/v2.
func (s *server) serveOpenAPI(w http.ResponseWriter, r *http.Request, p string) error {
	docs := s.x.OpenAPI()
	switch {
	case p == "/openapi/v2":
		if docs.V2 == nil {
			return errNoRoute()
		}
		return serveOpenAPIDocument(w, r, "/openapi/v2", docs.V2, docs.Modified, false, openAPIV2ProtoType, openAPIV2ProtoTypeDeprecated)
	case p == "/openapi/v3":
		if len(docs.Docs) == 0 {
			// A bundle without one: its server did not serve /openapi/v3
			// (1.23 and older), and clients fall back to /openapi/v2.
			return errNoRoute()
		}
		w.Header().Set("Etag", strconv.Quote(docs.Index.ETag))
		w.Header().Set("Content-Type", jsonType)
		http.ServeContent(w, r, p, docs.Modified, bytes.NewReader(docs.Index.JSON))
	case strings.HasPrefix(p, "/openapi/v3/"):
		docPath := strings.TrimPrefix(p, "/openapi/v3/")
		d, ok := docs.Docs[docPath]
		if !ok {
			return errNoRoute()
		}
		return serveOpenAPIDocument(w, r, docPath, d, docs.Modified, true, openAPIV3ProtoType, openAPIV3ProtoTypeDeprecated)
	default:
		return errNoRoute()
	}
	return nil
}

// serveOpenAPIDocument negotiates as kube-openapi does: the clauses of
// Accept by preference, the first that names JSON or the protobuf type
// (or a wildcard) wins, and nothing acceptable is a bare 406. A v3
// document asked for at another hash than its own redirects to its
// current URL; at its own hash it is immutable.
func serveOpenAPIDocument(w http.ResponseWriter, r *http.Request, docPath string, d *index.OpenAPIDoc, modified time.Time, v3 bool, protoType, protoTypeDeprecated string) error {
	w.Header().Add("Vary", "Accept")
	accept := r.Header.Get("Accept")
	if accept == "" {
		accept = "*/*"
	}
	for _, c := range parseAccept(accept) {
		if c.typ != "application" && c.typ != "*" {
			continue
		}
		var data []byte
		var contentType string
		switch {
		case c.subtype == "json" || c.subtype == "*":
			data, contentType = d.JSON, jsonType
		case "application/"+c.subtype == protoType || "application/"+c.subtype == protoTypeDeprecated:
			b, err := d.Proto()
			if err != nil {
				return fmt.Errorf("converting the OpenAPI document to protobuf: %w", err)
			}
			data, contentType = b, protoType
		default:
			continue
		}
		h := w.Header()
		h.Set("Content-Type", contentType)
		h.Set("Etag", strconv.Quote(d.ETag))
		if hash := r.URL.Query().Get("hash"); v3 && hash != "" {
			if hash != d.ETag {
				http.Redirect(w, r, index.OpenAPIIndexURL(docPath, d.ETag), http.StatusMovedPermanently)
				return nil
			}
			h.Set("Cache-Control", "public, immutable")
			h.Set("Expires", time.Now().AddDate(1, 0, 0).Format(time.RFC1123))
		}
		http.ServeContent(w, r, "", modified, bytes.NewReader(data))
		return nil
	}
	return errDocumentNotAcceptable
}

// acceptClause is one media range of an Accept header.
type acceptClause struct {
	typ, subtype string
	q            float64
}

// parseAccept reads an Accept header as goautoneg.ParseAccept, which
// kube-openapi uses, does: clauses by descending quality, a concrete type
// or subtype before a wildcard, in the order given otherwise.
func parseAccept(header string) []acceptClause {
	var out []acceptClause
	for _, part := range strings.Split(header, ",") {
		fields := strings.Split(strings.Trim(part, " "), ";")
		c := acceptClause{q: 1}
		typ, subtype, ok := strings.Cut(fields[0], "/")
		c.typ = strings.Trim(typ, " ")
		switch {
		case !ok && c.typ == "*":
			c.subtype = "*"
		case !ok || strings.Contains(subtype, "/"):
			continue
		default:
			c.subtype = strings.Trim(subtype, " ")
		}
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, "=")
			if ok && !strings.Contains(v, "=") && strings.Trim(k, " ") == "q" {
				c.q, _ = strconv.ParseFloat(v, 32)
			}
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.q > b.q || a.typ != "*" && b.typ == "*" || a.subtype != "*" && b.subtype == "*"
	})
	return out
}
