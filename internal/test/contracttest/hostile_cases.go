package contracttest

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// root is rel inside the hostile bundles' root folder.
func root(rel string) string { return HostileRoot + "/" + rel }

// with is the base bundle with files added.
func with(base []File, files ...File) []File { return append(append([]File(nil), base...), files...) }

// tgzOf is files as a gzipped tar.
func tgzOf(files []File) ([]byte, error) {
	raw, err := tarOf(files)
	if err != nil {
		return nil, err
	}
	return gzipOf(raw)
}

// widgetCRD is a CRD list of one CRD, widgets.example.com of kind.
func widgetCRD(kind string) File {
	return File{Name: root("cluster-resources/custom-resource-definitions.json"), Body: `{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[{"metadata":{"name":"widgets.example.com"},` +
		`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","singular":"widget","kind":"` + kind + `","listKind":"` + kind + `List"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}]}`}
}

// entryCases are bundles with one bad entry: a path out of the bundle, a
// link, a device, a name, JSON or YAML a reader must not trust. The files
// that would land outside the bundle are named under escaped.
func entryCases(base []File, escaped string) ([]built, error) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	aliases := "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		aliases += name + ": &" + name + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
		prev = name
	}
	cases := []struct {
		h     Hostile
		files []File
	}{
		{Hostile{Name: "absolute-path", Entry: filepath.Join(escaped, "absolute"), Want: "absolute path", Escapes: []string{filepath.Join(escaped, "absolute")}},
			with(base, File{Name: filepath.Join(escaped, "absolute"), Body: "pwned\n"})},
		{Hostile{Name: "dot-dot", Entry: root("../../escaped/dotdot"), Want: "..", Escapes: []string{filepath.Join(escaped, "dotdot")}},
			with(base, File{Name: root("../../escaped/dotdot"), Body: "pwned\n"})},
		{Hostile{Name: "symlink-out", Entry: root("cluster-resources/nodes.json"), Want: "leaves the bundle"},
			with(base, File{Name: root("cluster-resources/nodes.json"), Typeflag: tar.TypeSymlink, Linkname: "../../../../../../../../etc/passwd"})},
		{Hostile{Name: "symlink-absolute", Entry: root("cluster-resources/nodes.json"), Want: "absolute"},
			with(base, File{Name: root("cluster-resources/nodes.json"), Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})},
		// Each link on its own stays inside; through the first, the
		// second points above the bundle, and a file written through
		// both lands outside it.
		{Hostile{Name: "symlink-chain", Entry: root("cluster-resources/up/out"), Want: "link", Escapes: []string{filepath.Join(escaped, "chain")}},
			with(base,
				File{Name: root("cluster-resources/up"), Typeflag: tar.TypeSymlink, Linkname: "../.."},
				File{Name: root("cluster-resources/up/out"), Typeflag: tar.TypeSymlink, Linkname: "../escaped"},
				File{Name: root("cluster-resources/up/out/chain"), Body: "pwned\n"},
			)},
		// A link through another link: lexically inside, really above.
		{Hostile{Name: "symlink-through-link", Entry: root("cluster-resources/through"), Want: "link"},
			with(base,
				File{Name: root("cluster-resources/up"), Typeflag: tar.TypeSymlink, Linkname: "../.."},
				File{Name: root("cluster-resources/through"), Typeflag: tar.TypeSymlink, Linkname: "up/../escaped"},
			)},
		{Hostile{Name: "hardlink-out", Entry: root("cluster-resources/nodes.json"), Want: "leaves the bundle"},
			with(base, File{Name: root("cluster-resources/nodes.json"), Typeflag: tar.TypeLink, Linkname: "../escaped/hard"})},
		{Hostile{Name: "device", Entry: root("cluster-resources/nodes.json"), Want: "not allowed"},
			with(base, File{Name: root("cluster-resources/nodes.json"), Typeflag: tar.TypeChar})},
		{Hostile{Name: "non-utf8-name", Entry: root("cluster-resources/pods/\xff\xfe.json"), Want: "UTF-8"},
			with(base, File{Name: root("cluster-resources/pods/\xff\xfe.json"), Body: hostilePods})},
		{Hostile{Name: "duplicate", Entry: root("cluster-resources/nodes.json"), Rel: "cluster-resources/nodes.json", Want: "more than once", Failsafe: true},
			with(base,
				File{Name: root("cluster-resources/nodes.json"), Body: `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n1"}}]}`},
				File{Name: root("cluster-resources/nodes.json"), Body: `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n2"}}]}`},
			)},
		{Hostile{Name: "invalid-json", Entry: root("cluster-resources/nodes.json"), Rel: "cluster-resources/nodes.json", Want: "invalid JSON", Failsafe: true},
			with(base, File{Name: root("cluster-resources/nodes.json"), Body: `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n1"}},`})},
		{Hostile{Name: "deep-json", Entry: root("cluster-resources/nodes.json"), Rel: "cluster-resources/nodes.json", Want: "depth", Failsafe: true},
			with(base, File{Name: root("cluster-resources/nodes.json"), Body: `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"n1"},"x":` + deep + `}]}`})},
		{Hostile{Name: "wrong-kind", Entry: root("cluster-resources/nodes.json"), Rel: "cluster-resources/nodes.json", Want: "Deployment", Failsafe: true},
			with(base, File{Name: root("cluster-resources/nodes.json"), Body: `{"kind":"DeploymentList","apiVersion":"apps/v1","items":[{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d1","namespace":"default"}}]}`})},
		{Hostile{Name: "wrong-item-kind", Entry: root("cluster-resources/nodes.json"), Rel: "cluster-resources/nodes.json", Want: "Pod", Failsafe: true},
			with(base, File{Name: root("cluster-resources/nodes.json"), Body: `{"kind":"NodeList","apiVersion":"v1","items":[{"kind":"Node","apiVersion":"v1","metadata":{"name":"n1"}},{"kind":"Pod","apiVersion":"v1","metadata":{"name":"p1","namespace":"default"}}]}`})},
		{Hostile{Name: "yaml-not-yaml", Entry: root("cluster-resources/custom-resources/widgets.example.com/default.yaml"), Rel: "cluster-resources/custom-resources/widgets.example.com/default.yaml", Want: "YAML", Failsafe: true},
			with(base, widgetCRD("Widget"), File{Name: root("cluster-resources/custom-resources/widgets.example.com/default.yaml"), Body: "- apiVersion: example.com/v1\n\tkind: [Widget\n  metadata: {name: w1\x00\x01\x02\n"})},
		{Hostile{Name: "yaml-alias-bomb", Entry: root("cluster-resources/custom-resources/widgets.example.com/default.yaml"), Rel: "cluster-resources/custom-resources/widgets.example.com/default.yaml", Want: "alias", Failsafe: true},
			with(base, widgetCRD("Widget"), File{Name: root("cluster-resources/custom-resources/widgets.example.com/default.yaml"), Body: aliases})},
		// Valid JSON that no Go float holds, in a metadata member the
		// server does not know: it would have dropped it when it decoded
		// the ConfigMap, so its Table rows always decode.
		{Hostile{Name: "metadata-number", Want: "metadata.x: 1e400", Accepted: true, TablePath: "/api/v1/configmaps"},
			with(base, File{Name: root("cluster-resources/configmaps/default.json"), Body: `{"kind":"ConfigMapList","apiVersion":"v1","items":[` +
				`{"metadata":{"name":"huge","namespace":"default","x":1e400,"resourceVersion":"8","creationTimestamp":"2025-11-20T09:00:00Z"},"data":{"a":"b"}},` +
				`{"metadata":{"name":"plain","namespace":"default","resourceVersion":"9","creationTimestamp":"2025-11-20T09:00:00Z"}}]}`})},
	}
	out := make([]built, 0, len(cases))
	for _, c := range cases {
		data, err := tgzOf(c.files)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.h.Name, err)
		}
		out = append(out, built{c.h, data})
	}
	return out, nil
}

// brokenCases are archives cut, corrupt, or not archives at all.
func brokenCases(base []File) ([]built, error) {
	padded := with(base, File{Name: root("cluster-resources/nodes.json"), Body: `{"items":[]}` + strings.Repeat(" ", 200000)},
		File{Name: root("cluster-resources/events/default.json"), Body: `{"items":[]}`})
	raw, err := tarOf(padded)
	if err != nil {
		return nil, err
	}
	zipped, err := gzipOf(raw)
	if err != nil {
		return nil, err
	}
	// The checksum of the last header: the entries before it are read.
	corrupt := bytes.Clone(raw)
	at := bytes.Index(raw, []byte(root("cluster-resources/events/default.json")))
	if at < 0 || at%512 != 0 {
		return nil, errors.New("contracttest: the header to corrupt is not where it should be")
	}
	copy(corrupt[at+148:at+156], "garbage!")
	var out []built
	for _, c := range []struct {
		h    Hostile
		data []byte
	}{
		{Hostile{Name: "truncated-gzip", Want: "truncated"}, zipped[:len(zipped)/2]},
		{Hostile{Name: "gzip-checksum", Want: "gzip"}, append(bytes.Clone(zipped[:len(zipped)-8]), 1, 2, 3, 4, 5, 6, 7, 8)},
		{Hostile{Name: "truncated-tar", Entry: root("cluster-resources/nodes.json"), Want: "truncated"}, raw[:4*512+100000]},
		{Hostile{Name: "corrupt-header", Entry: root("cluster-resources/nodes.json"), Want: "corrupt archive"}, corrupt},
		{Hostile{Name: "not-an-archive", Want: "not a tar"}, []byte(strings.Repeat("this is not a bundle\n", 40))},
	} {
		out = append(out, built{c.h, c.data})
	}
	return out, nil

}

// hugeCases are small archives of huge entries: a gzip bomb, and a list
// over the decode limit.
func hugeCases(base []File, o HostileOptions) ([]built, error) {
	bomb := root("cluster-resources/pods/bomb.json")
	bombData, err := bigArchive(base, bomb, o.BombSize, nil, make([]byte, 1<<20), 0, nil)
	if err != nil {
		return nil, err
	}
	huge := root("cluster-resources/nodes.json")
	item := []byte(`{"kind":"Node","apiVersion":"v1","metadata":{"name":"n","labels":{"kubernetes.io/hostname":"n"}},"status":{"nodeInfo":{"kubeletVersion":"v1.35.4"}}}`)
	chunk := bytes.Repeat(append([]byte(",\n"), item...), (1<<20)/(len(item)+2))
	head := append([]byte(`{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[`), item...)
	hugeData, err := bigArchive(base, huge, o.HugeJSONSize, head, chunk, ' ', []byte("]}"))
	if err != nil {
		return nil, err
	}
	return []built{
		{Hostile{Name: "gzip-bomb", Entry: bomb, Want: "limit", Huge: true}, bombData},
		{Hostile{Name: "huge-json", Entry: huge, Rel: "cluster-resources/nodes.json", Want: "decode limit", Failsafe: true, Huge: true}, hugeData},
	}, nil

}
