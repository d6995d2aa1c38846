package contracttest

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
)

// inputCases are the inputs of issue #30 that were read otherwise than
// tar extracts them, or refused where tar reads them: lists stored as
// links, a backslash in a name, two bundle roots, a discovery.json with
// a group no client can parse, a gzip header with a long file name and
// comment, and v7 tar headers.
func inputCases(base []File) ([]built, error) {
	// A pod list without the good pod: served in its place, it would hide it.
	other := `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` +
		`{"metadata":{"name":"impostor","namespace":"default","uid":"u9","resourceVersion":"5","creationTimestamp":"2025-11-20T09:00:00Z"},` +
		`"spec":{"containers":[{"name":"c","image":"busybox"}]},"status":{"phase":"Running"}}]}`
	nodes := `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` +
		`{"metadata":{"name":"n1","uid":"n1","resourceVersion":"3","creationTimestamp":"2025-11-20T09:00:00Z"},"status":{"nodeInfo":{"kubeletVersion":"v1.35.4"}}}]}`
	discovery := `{"bundleSchemaVersion":"1.0","collectedAt":"2025-11-20T10:00:00Z","kubernetesVersion":"v1.35.4","apiVersion":"v1",` +
		`"groups":[{"name":"","versions":[{"groupVersion":"v1","version":"v1"}],"preferredVersion":{"groupVersion":"v1","version":"v1"}},` +
		`{"name":"bad/group","versions":[{"groupVersion":"bad/group/v1","version":"v1"}],"preferredVersion":{"groupVersion":"bad/group/v1","version":"v1"}}],` +
		`"resources":{"v1":[{"name":"pods","singularName":"pod","namespaced":true,"kind":"Pod","verbs":["get","list","watch"],"shortNames":["po"]}],` +
		`"bad/group/v1":[{"name":"things","singularName":"thing","namespaced":true,"kind":"Thing","verbs":["get","list"]}]}}`
	var out []built
	for _, c := range []struct {
		h     Hostile
		files []File
	}{
		{Hostile{Name: "linked-lists", Want: "lists stored as a symlink to a symlink, and as a hard link", Accepted: true, TablePath: "/api/v1/nodes"},
			with(base,
				File{Name: root("dedup/nodes.json"), Body: nodes},
				File{Name: root("dedup/nodes-again.json"), Typeflag: tar.TypeSymlink, Linkname: "nodes.json"},
				File{Name: root("cluster-resources/nodes.json"), Typeflag: tar.TypeSymlink, Linkname: "../dedup/nodes-again.json"},
				// Two namespaces' identical empty lists: tar stores the second
				// as a hard link when they are hard-linked files.
				File{Name: root("cluster-resources/pods/kube-public.json"), Body: `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[]}`},
				File{Name: root("cluster-resources/pods/kube-system.json"), Typeflag: tar.TypeLink, Linkname: root("cluster-resources/pods/kube-public.json")},
			)},
		{Hostile{Name: "backslash-name", Entry: root(`cluster-resources\pods\default.json`), Rel: `cluster-resources\pods\default.json`, Want: "backslash", Failsafe: true},
			with(base, File{Name: root(`cluster-resources\pods\default.json`), Body: other})},
		{Hostile{Name: "two-roots", Entry: "support-bundle-2025-11-19T10_00_00", Rel: "support-bundle-2025-11-19T10_00_00", Want: "another bundle root", Failsafe: true},
			with(base,
				File{Name: "support-bundle-2025-11-19T10_00_00/version.yaml", Body: base[0].Body},
				File{Name: "support-bundle-2025-11-19T10_00_00/cluster-resources/pods/default.json", Body: other},
			)},
		{Hostile{Name: "discovery-invalid-group", Entry: root("cluster-resources/_meta/discovery.json"), Rel: "cluster-resources/_meta/discovery.json", Want: `group "bad/group": not a valid group name`, Failsafe: true},
			with(base, File{Name: root("cluster-resources/_meta/discovery.json"), Body: discovery})},
	} {
		raw, err := tarOf(c.files)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.h.Name, err)
		}
		data, err := gzipOf(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, built{c.h, data})
	}
	raw, err := tarOf(base)
	if err != nil {
		return nil, err
	}
	v7, err := v7Of(raw)
	if err != nil {
		return nil, err
	}
	long := longHeaderMember(raw)
	return append(out,
		built{Hostile{Name: "gzip-long-name", Want: "a gzip header with a 600-byte name and a 3000-byte comment", Accepted: true, TablePath: "/api/v1/pods"}, long},
		built{Hostile{Name: "v7-tar", Want: "v7 tar headers, without the ustar magic", Accepted: true, TablePath: "/api/v1/pods"}, v7},
	), nil
}

// longHeaderMember is data in a gzip member whose header holds a file
// name and a comment longer than Go's and klauspost's gzip packages read
// (512 bytes), which gzip writes (-N keeps any name) and reads.
func longHeaderMember(data []byte) []byte {
	h := []byte{0x1f, 0x8b, 8, 1<<1 | 1<<3 | 1<<4, 0, 0, 0, 0, 0, 3}
	h = append(append(h, bytes.Repeat([]byte("n"), 600)...), 0)
	h = append(append(h, bytes.Repeat([]byte("c"), 3000)...), 0)
	h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	buf := bytes.NewBuffer(h)
	fw, _ := flate.NewWriter(buf, flate.BestCompression)
	fw.Write(data)
	fw.Close()
	out := binary.LittleEndian.AppendUint32(buf.Bytes(), crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(out, uint32(len(data)))
}

// v7Of rewrites a tar stream of USTAR headers as Unix v7 wrote them: no
// magic, version, owner names or prefix, the checksum computed again.
// Names must fit the 100 bytes of a v7 header. The archive stays plain:
// only its header tells it from other bytes.
func v7Of(data []byte) ([]byte, error) {
	out := bytes.Clone(data)
	for at := 0; at+512 <= len(out); {
		h := out[at : at+512]
		if bytes.Equal(h, make([]byte, 512)) {
			break
		}
		if string(h[257:262]) != "ustar" || h[345] != 0 {
			return nil, fmt.Errorf("contracttest: a header at %d is not a plain USTAR one", at)
		}
		clear(h[257:])
		copy(h[148:156], "        ")
		sum := 0
		for _, c := range h {
			sum += int(c)
		}
		copy(h[148:156], fmt.Sprintf("%06o\x00 ", sum))
		size, err := strconv.ParseInt(string(bytes.Trim(h[124:136], " \x00")), 8, 64)
		if err != nil {
			return nil, err
		}
		at += 512 + int((size+511)/512*512)
	}
	return out, nil
}
