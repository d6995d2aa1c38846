package transform

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

// The OpenAPI documents a kube-apiserver of a release (builtin.go)
// publishes for its built-in APIs: every document of its
// /openapi/v3 index (v3/<path>.json, byte for byte) and /openapi/v2
// (v2.json), as a tar archive compressed with zstd (11 MB of JSON, about
// 270 KB here: the documents repeat each other, which a long window
// finds). It is read from a real server with every API version and the
// gates of internal/localapiserver's defaults, so that it holds every group
// version the release can serve; a group version's document does not
// depend on which others are enabled (the documents of a default server
// are the same bytes). TestBuiltinOpenAPIIsCurrent checks it against a
// live server and -update rewrites it.
//
// The server builds these documents from its routes (every installed
// resource's REST storage) and the generated definitions
// (k8s.io/kubernetes/pkg/generated/openapi); building them here would
// mean instantiating the whole API's storage, so they are captured.
// That is what builtin/openapi-1.NN.tar.zst holds.

// builtinOpenAPI is the decoded data: v3 documents by path under
// /openapi/v3/, and the v2 document.
type builtinOpenAPI struct {
	v3 map[string][]byte
	v2 []byte
}

// maxBuiltinOpenAPI bounds the decompressed data, which is ours, as a
// guard against a corrupt file.
const maxBuiltinOpenAPI = 256 << 20

// loadBuiltinOpenAPI decompresses the data for a cluster of minor. It is
// not kept: the upgrade needs it once, at the end, and serve may keep
// running after upgrading.
func loadBuiltinOpenAPI(minor int) (*builtinOpenAPI, error) {
	file := builtinOpenAPIFile(builtinMinor(minor))
	compressed, err := builtinData.ReadFile(file)
	if err != nil {
		return nil, err
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxBuiltinOpenAPI), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	data, err := dec.DecodeAll(compressed, nil)
	if err != nil {
		return nil, fmt.Errorf("the embedded %s: %w", file, err)
	}
	out := &builtinOpenAPI{v3: map[string][]byte{}}
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("the embedded %s: %w", file, err)
		}
		// Sized from the header, which the archive's own length bounds:
		// io.ReadAll's doubling made a third of an upgrade's garbage
		// outside the stream.
		if hdr.Size > int64(len(data)) {
			return nil, fmt.Errorf("the embedded %s: %s claims %d bytes", file, hdr.Name, hdr.Size)
		}
		body := make([]byte, hdr.Size)
		if _, err := io.ReadFull(tr, body); err != nil {
			return nil, fmt.Errorf("the embedded %s: %w", file, err)
		}
		switch p, ok := strings.CutPrefix(hdr.Name, "v3/"); {
		case hdr.Name == "v2.json":
			out.v2 = body
		case ok && strings.HasSuffix(p, ".json"):
			out.v3[strings.TrimSuffix(p, ".json")] = body
		}
	}
	// Releases before 1.24 served no /openapi/v3: their data is v2 alone.
	if out.v2 == nil || out.v3["api/v1"] == nil && builtinMinor(minor) >= openAPIV3Since {
		return nil, fmt.Errorf("the embedded %s lacks v2.json or v3/api/v1.json", file)
	}
	return out, nil
}

// encodeBuiltinOpenAPI makes the data file: a tar of the documents in
// path order with fixed headers, so that the same documents give the same
// bytes, compressed with zstd's best ratio and a window that spans the
// whole archive.
func encodeBuiltinOpenAPI(b *builtinOpenAPI) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	names := make([]string, 0, len(b.v3))
	for p := range b.v3 {
		names = append(names, p)
	}
	sort.Strings(names)
	add := func(name string, body []byte) error {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0).UTC()}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	for _, p := range names {
		if err := add("v3/"+p+".json", b.v3[p]); err != nil {
			return nil, err
		}
	}
	if err := add("v2.json", b.v2); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithWindowSize(16<<20), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer enc.Close()
	return enc.EncodeAll(buf.Bytes(), nil), nil
}
