package contracttest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
)

// built is a case and its archive.
type built struct {
	h    Hostile
	data []byte
}

// bigObjectCases are lists of one object of size bytes, as a real server
// could never have stored (etcd stops at 1.5 MiB) but a bundle can hold:
// a ConfigMap and a Secret with one large data value, and a custom
// resource with one large spec field.
func bigObjectCases(base []File, crd File, size int64) ([]built, error) {
	meta := `"metadata":{"name":"big","namespace":"default","uid":"u-big","resourceVersion":"8","creationTimestamp":"2025-11-20T09:00:00Z"}`
	chunk := bytes.Repeat([]byte("QUJD"), 1<<18) // base64, so also a Secret's value
	var out []built
	for _, c := range []struct {
		name, rel, list, head, tail string
		files                       []File
	}{
		{"big-configmap", "cluster-resources/configmaps/default.json", "/api/v1/configmaps",
			`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{` + meta + `,"data":{"blob":"`, `"}}]}`, nil},
		{"big-secret", "cluster-resources/secrets/default.json", "/api/v1/secrets",
			`{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{` + meta + `,"type":"Opaque","data":{"blob":"`, `"}}]}`, nil},
		{"big-custom-resource", "cluster-resources/custom-resources/widgets.example.com/default.json", "/apis/example.com/v1/widgets",
			`[{"apiVersion":"example.com/v1","kind":"Widget",` + meta + `,"spec":{"color":"blue","blob":"`, `"}}]`, []File{crd}},
	} {
		data, err := bigArchive(append(append([]File(nil), base...), c.files...), HostileRoot+"/"+c.rel, size, []byte(c.head), chunk, 'A', []byte(c.tail))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		out = append(out, built{Hostile{Name: c.name, Want: fmt.Sprintf("one object of %d bytes", size), Accepted: true, TablePath: c.list,
			Big: size, BigList: c.list}, data})
	}
	return out, nil
}

// crdListCases are bundles whose CRD list is size bytes, in the two
// shapes a large list takes: many CRDs of large schemas, each served at
// two versions with a schema each (as operators ship them: a few hundred
// kilobytes per CRD), and two CRDs of huge schemas. Every CRD is
// established and structural, so that its table, discovery and OpenAPI
// documents are made without a problem.
func crdListCases(base []File, size int64) ([]built, error) {
	const perCRD = 400_000 // the many-CRD shape's size of each CRD
	many := max(1, int(size/perCRD))
	var out []built
	// Measured on the 48 MB lists (2026-11-27): inspect holds the list
	// twice (the CRDs it reads first, then the entry); upgrade holds the
	// list, the documents' parts encoded, then the documents (about 5x),
	// plus, while one CRD is built, the apiextensions builder's values
	// (about 27x that CRD: 13x the list for two CRDs of half of it each);
	// serve upgrades on load, then serves the list and the documents.
	for _, c := range []struct {
		name     string
		crds     int
		versions []string
		ratios   map[string]float64
	}{
		{"big-crd-list-many", many, []string{"v1", "v1beta1"}, map[string]float64{"inspect": 2.5, "upgrade": 7, "serve": 10}},
		{"big-crd-list-huge", 2, []string{"v1"}, map[string]float64{"inspect": 2.5, "upgrade": 16, "serve": 16}},
	} {
		list := crdList(c.crds, c.versions, size)
		data, err := tgzFast(append(append([]File(nil), base...), File{Name: HostileRoot + "/cluster-resources/custom-resource-definitions.json", Body: list}))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.name, err)
		}
		path := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
		out = append(out, built{Hostile{Name: c.name, Want: fmt.Sprintf("%d CRDs in a list of %d bytes", c.crds, len(list)), Accepted: true,
			TablePath: path, Big: int64(len(list)), BigList: path, Ratios: c.ratios}, data})
	}
	return out, nil
}

// crdList is a CustomResourceDefinitionList of n CRDs, each with the
// given versions, of about size bytes in all: each version's schema
// holds objects of string fields with descriptions, as generated CRDs do.
func crdList(n int, versions []string, size int64) string {
	const field = `{"description":"A field of the generated schema, described at the length controller-gen copies from Go doc comments.","type":"string"}`
	const fields = 40
	var group strings.Builder
	group.WriteString(`{"description":"A group of fields.","type":"object","properties":{`)
	for f := range fields {
		if f > 0 {
			group.WriteByte(',')
		}
		fmt.Fprintf(&group, `"field%02d":%s`, f, field)
	}
	group.WriteString(`}}`)
	perSchema := size / int64(n*len(versions))
	groups := max(1, int(perSchema/int64(group.Len()+12)))
	var b strings.Builder
	b.Grow(int(size) + 1<<20)
	b.WriteString(`{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","metadata":{"resourceVersion":"9"},"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		kind := fmt.Sprintf("Thing%04d", i)
		plural := strings.ToLower(kind) + "s"
		fmt.Fprintf(&b, `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"%s.example.com","uid":"u-crd-%d","resourceVersion":"%d","creationTimestamp":"2025-11-20T09:00:00Z"},`+
			`"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"%s","singular":"%s","kind":"%s","listKind":"%sList"},"versions":[`,
			plural, i, 10+i, plural, strings.ToLower(kind), kind, kind)
		for j, v := range versions {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"%s","served":true,"storage":%t,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{`, v, j == 0)
			for g := range groups {
				if g > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"group%06d":%s`, g, group.String())
			}
			b.WriteString(`}}}}}}`)
		}
		fmt.Fprintf(&b, `]},"status":{"conditions":[{"type":"Established","status":"True","lastTransitionTime":"2025-11-20T09:00:00Z","reason":"InitialNamesAccepted","message":"the initial names have been accepted"}],`+
			`"acceptedNames":{"plural":"%s","singular":"%s","kind":"%s","listKind":"%sList"},"storedVersions":["%s"]}}`, plural, strings.ToLower(kind), kind, kind, versions[0])
	}
	b.WriteString(`]}`)
	return b.String()
}

// tgzFast is a .tar.gz of files compressed at gzip's fastest level: the
// CRD cases' lists are hundreds of megabytes with no chunk to repeat.
func tgzFast(files []File) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if err := writeTar(zw, files, true); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// earlyCases are bundles whose early-read files (read in the first pass,
// before the root is known) are large: six decoy cluster_version.json
// files and a decoy of each other early name outside the root, and the
// root's own version files over their caps.
func earlyCases(base []File, size int64) ([]built, error) {
	version := `{"info":{"major":"1","minor":"35","gitVersion":"v1.35.4"},"string":"`
	crds := `{"kind":"CustomResourceDefinitionList","apiVersion":"apiextensions.k8s.io/v1","items":[],"x":"`
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	a, err := newTgzBuilder(base)
	if err != nil {
		return nil, err
	}
	for i := range 6 {
		if err := a.bigEntry(fmt.Sprintf("decoy%d/cluster-info/cluster_version.json", i), size, []byte(version), chunk, 'x', []byte(`"}`)); err != nil {
			return nil, err
		}
	}
	// No decoy folder holds both version.yaml and cluster-resources, so
	// the root stays the root.
	for _, name := range []string{"decoy/version.yaml", "decoy1/cluster-resources/_meta/discovery.json", "decoy1/cluster-resources/custom-resource-definitions.json",
		"decoy2/cluster-resources/custom-resource-definitions.json"} {
		if err := a.bigEntry(name, size, []byte(crds), chunk, 'x', []byte(`"}`)); err != nil {
			return nil, err
		}
	}
	outside, err := a.finish()
	if err != nil {
		return nil, err
	}
	// The root's own: base without its version files, then big ones.
	a, err = newTgzBuilder(base[2:])
	if err != nil {
		return nil, err
	}
	if err := a.bigEntry(HostileRoot+"/version.yaml", size, []byte("apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\n# "), chunk, 'x', []byte("\n")); err != nil {
		return nil, err
	}
	if err := a.bigEntry(HostileRoot+"/cluster-info/cluster_version.json", size, []byte(version), chunk, 'x', []byte(`"}`)); err != nil {
		return nil, err
	}
	inside, err := a.finish()
	if err != nil {
		return nil, err
	}
	return []built{
		{Hostile{Name: "early-decoys", Entry: "decoy0/cluster-info/cluster_version.json", Rel: "decoy0/cluster-info/cluster_version.json",
			Want: "limit of this file", Failsafe: true, Big: size}, outside},
		{Hostile{Name: "early-oversize", Entry: HostileRoot + "/version.yaml", Rel: HostileRoot + "/version.yaml",
			Want: "limit of this file", Failsafe: true, Big: size}, inside},
	}, nil
}

// paxCases are entries each with a PAX record of
// PAXRecordSize bytes: a path or a link target (refused at the first),
// a comment or an extended attribute (read one header at a time, and
// copied). Each archive is small: the long record is compressed once
// and repeated.
func paxCases(base []File, entries int) ([]built, error) {
	long := strings.Repeat("z", PAXRecordSize)
	dir := HostileRoot + "/cluster-resources/"
	var out []built
	for _, c := range []struct {
		h   Hostile
		hdr func(i int) tar.Header
	}{
		{Hostile{Name: "pax-long-path", Entry: (dir + long)[:200] + "...", Want: "PATH_MAX"},
			func(int) tar.Header { return tar.Header{Name: dir + long, Typeflag: tar.TypeReg} }},
		{Hostile{Name: "pax-long-linkpath", Entry: dir + "link.json", Want: "PATH_MAX"},
			func(int) tar.Header {
				return tar.Header{Name: dir + "link.json", Typeflag: tar.TypeSymlink, Linkname: "x/" + long}
			}},
		{Hostile{Name: "pax-comment", Want: fmt.Sprintf("%d entries with a PAX comment of %d bytes", entries, PAXRecordSize), Accepted: true, TablePath: "/api/v1/pods"},
			func(i int) tar.Header {
				return tar.Header{Name: fmt.Sprintf("%sextra/comment-%03d.txt", HostileRoot+"/", i), Typeflag: tar.TypeReg, PAXRecords: map[string]string{"comment": long}}
			}},
		{Hostile{Name: "pax-xattr", Want: fmt.Sprintf("%d entries with an extended attribute of %d bytes", entries, PAXRecordSize), Accepted: true, TablePath: "/api/v1/pods"},
			func(i int) tar.Header {
				return tar.Header{Name: fmt.Sprintf("%sextra/xattr-%03d.txt", HostileRoot+"/", i), Typeflag: tar.TypeReg, PAXRecords: map[string]string{"SCHILY.xattr.user.big": long}}
			}},
	} {
		a, err := newTgzBuilder(base)
		if err != nil {
			return nil, err
		}
		for i := range entries {
			var unit bytes.Buffer
			tw := tar.NewWriter(&unit)
			hdr := c.hdr(i)
			hdr.Mode, hdr.ModTime, hdr.Format = 0o644, Epoch, tar.FormatPAX
			if err := tw.WriteHeader(&hdr); err != nil {
				return nil, fmt.Errorf("%s: %w", c.h.Name, err)
			}
			if err := tw.Flush(); err != nil {
				return nil, err
			}
			// What comes before and after the long record differs from
			// entry to entry (names, sizes, checksums); the record does not.
			at := bytes.Index(unit.Bytes(), []byte(long))
			if at < 0 {
				return nil, fmt.Errorf("%s: the record is not in the header", c.h.Name)
			}
			if err := a.g.segment(unit.Bytes()[:at], false); err != nil {
				return nil, err
			}
			if err := a.repeat([]byte(long), 1); err != nil {
				return nil, err
			}
			if err := a.g.segment(unit.Bytes()[at+len(long):], false); err != nil {
				return nil, err
			}
		}
		data, err := a.finish()
		if err != nil {
			return nil, err
		}
		c.h.Big = PAXRecordSize
		out = append(out, built{c.h, data})
	}
	return out, nil
}
