package contracttest

import (
	"archive/tar"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// Hostile is one bad bundle of the hostile corpus: what it holds, and what
// every command must make of it. A bundle comes from a customer's
// cluster, so each of these is something a real archive can hold.
type Hostile struct {
	// Name is short and safe as a file name.
	Name string
	// Path is the bundle written.
	Path string
	// Entry is the archive entry an error or warning must name; "" when
	// the problem is the archive as a whole (the error names Path).
	Entry string
	// Want is a substring of that error or warning.
	Want string
	// Failsafe says the design keeps going: inspect reports a problem for
	// the entry, upgrade copies it unchanged and reports it, serve serves
	// the rest and warns about it. Otherwise every command fails with an
	// error naming the entry and writes nothing.
	Failsafe bool
	// Rel is the entry's path relative to the bundle root, for failsafe
	// cases (what problems and warnings name).
	Rel string
	// Accepted says the bundle is one a real server could have served,
	// however odd: every command takes it and reports nothing, and
	// serve's Table at TablePath (an API path) decodes as kubectl decodes
	// it, every row's object as PartialObjectMetadata. Want says what
	// the case holds.
	Accepted  bool
	TablePath string
	// Escapes are absolute paths outside the bundle that a careless reader
	// would create; none of them may exist after any command.
	Escapes []string
	// Huge marks the cases whose entries are gigabytes once uncompressed;
	// their archives are small.
	Huge bool
	// Big is the size of the one large object (or of each large entry)
	// of the cases whose memory must not follow it by multiples; 0 for
	// the others. A command's peak is bounded by a constant plus a
	// multiple of Big that the test states.
	Big int64
	// BigList is the API path of the list that holds the large object,
	// which the test also asks for several times at once.
	BigList string
	// Ratios, when set, are the multiples of Big each command's peak may
	// reach above the test's constant, where the test's own (made for one
	// large object) do not hold: a CRD list is built into OpenAPI
	// documents.
	Ratios map[string]float64
	// Items is the number of objects the cases of many small items
	// serve (an event is served at two versions), whose bookkeeping each
	// command may pay per object besides their bytes, at a cost the test
	// states; 0 for the others.
	Items int
}

// HostileOptions size the corpus.
type HostileOptions struct {
	// HugeJSONSize is the size of the single huge JSON list; 0 means
	// HugeJSONDefault, which is just over the default decode limit.
	HugeJSONSize int64
	// BombSize is what the gzip bomb's entry expands to; 0 means
	// BombDefault, over the default entry limit.
	BombSize int64
	// BigObjectSize is the size of the one large object of the
	// big-object cases (a ConfigMap, a Secret, a custom resource); 0
	// means BigObjectDefault.
	BigObjectSize int64
	// EarlySize is the size of each decoy of the early-read files (the
	// version, discovery and CRD files the first pass reads); 0 means
	// EarlyDefault.
	EarlySize int64
	// PAXEntries is the number of entries of the PAX cases; 0 means
	// PAXEntriesDefault.
	PAXEntries int
	// CRDListSize is the size of the CRD list of the CRD cases (many
	// CRDs of large schemas, or two CRDs of huge ones); 0 means
	// CRDListDefault.
	CRDListSize int64
	// Items is the number of items of the many-items cases; 0 means
	// ItemsDefault. Entries is the number of entries of the many-entries
	// case; 0 means EntriesDefault.
	Items, Entries int
}

const (
	// HugeJSONDefault is a little over 1 GiB, contract.DefaultLimits'
	// MaxDecodeSize: the list is copied, not decoded.
	HugeJSONDefault = 1<<30 + 1<<20
	// BombDefault is 5 GiB of zeros, over contract.DefaultLimits'
	// MaxEntrySize (4 GiB); its archive is about 5 MB.
	BombDefault = 5 << 30
	// BigObjectDefault keeps the default suite fast; issue #18 measured
	// 400 MB objects (make hostile-long).
	BigObjectDefault = 48 << 20
	// EarlyDefault is over every early-read file's cap but the CRD
	// list's; issue #18 measured 300 MB decoys (make hostile-long).
	EarlyDefault = 40 << 20
	// PAX entries with a record of PAXRecordSize bytes each make the PAX
	// cases: names, links, comments and attributes that Go's archive/tar
	// reads one header (at most 1 MiB) at a time. Issue #18 measured 600
	// (make hostile-long).
	PAXEntriesDefault = 40
	PAXRecordSize     = 1_000_000
	// CRDListDefault keeps the default suite fast; issue #18 measured a
	// 200 MB CRD list (make hostile-long).
	CRDListDefault = 48 << 20
)

// HostileRoot is the root folder of every hostile bundle; its name tells
// the collection time, so no command needs --collected-at.
const HostileRoot = "support-bundle-2025-11-20T10_00_00"

// hostilePods is the one good list of every hostile bundle: what serve
// must still serve when a failsafe case spoils another file.
const hostilePods = `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[` +
	`{"metadata":{"name":"good","namespace":"default","uid":"u1","resourceVersion":"5","creationTimestamp":"2025-11-20T09:00:00Z"},` +
	`"spec":{"containers":[{"name":"c","image":"busybox"}],"nodeName":"n1"},"status":{"phase":"Running"}}]}`

// HostileGoodPod is the name of the good pod in default every hostile
// bundle holds.
const HostileGoodPod = "good"

func hostileBase() []File {
	return []File{
		{Name: HostileRoot + "/version.yaml", Body: "apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  runner: hostile\n  versionNumber: " + TroubleshootVersion + "\n"},
		{Name: HostileRoot + "/cluster-info/cluster_version.json", Body: `{"info":{"major":"1","minor":"35","gitVersion":"v1.35.4"},"string":"v1.35.4"}`},
		{Name: HostileRoot + "/cluster-resources/pods/default.json", Body: hostilePods},
	}
}

// WriteHostileCorpus writes every hostile bundle under dir (which it
// creates) and returns them. Escape targets are under dir too, so a test
// can check that nothing was written there.
func WriteHostileCorpus(dir string, opts HostileOptions) ([]Hostile, error) {
	opts.defaults()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	base := hostileBase()
	var all []built
	for _, cases := range []func() ([]built, error){
		func() ([]built, error) { return entryCases(base, filepath.Join(dir, "escaped")) },
		func() ([]built, error) { return brokenCases(base) },
		func() ([]built, error) { return hugeCases(base, opts) },
		func() ([]built, error) { return bigObjectCases(base, widgetCRD("Widget"), opts.BigObjectSize) },
		func() ([]built, error) { return earlyCases(base, opts.EarlySize) },
		func() ([]built, error) { return paxCases(base, opts.PAXEntries) },
		func() ([]built, error) { return crdListCases(base, opts.CRDListSize) },
		func() ([]built, error) { return inputCases(base) },
		func() ([]built, error) { return itemCases(base, opts.Items, opts.Entries) },
	} {
		more, err := cases()
		if err != nil {
			return nil, err
		}
		all = append(all, more...)
	}
	out := make([]Hostile, 0, len(all))
	for _, c := range all {
		ext := ".tar"
		if len(c.data) > 2 && c.data[0] == 0x1f && c.data[1] == 0x8b {
			ext = ".tar.gz"
		}
		c.h.Path = filepath.Join(dir, c.h.Name+ext)
		if err := os.WriteFile(c.h.Path, c.data, 0o644); err != nil {
			return nil, err
		}
		out = append(out, c.h)
	}
	return out, nil
}

// defaults puts each size's default where it is 0.
func (o *HostileOptions) defaults() {
	if o.HugeJSONSize == 0 {
		o.HugeJSONSize = HugeJSONDefault
	}
	if o.BombSize == 0 {
		o.BombSize = BombDefault
	}
	if o.BigObjectSize == 0 {
		o.BigObjectSize = BigObjectDefault
	}
	if o.EarlySize == 0 {
		o.EarlySize = EarlyDefault
	}
	if o.PAXEntries == 0 {
		o.PAXEntries = PAXEntriesDefault
	}
	if o.CRDListSize == 0 {
		o.CRDListSize = CRDListDefault
	}
	if o.Items == 0 {
		o.Items = ItemsDefault
	}
	if o.Entries == 0 {
		o.Entries = EntriesDefault
	}
}

func tarOf(files []File) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeTar(&buf, files, true); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeTar writes files as Tar does; end adds the end-of-archive marker.
func writeTar(w io.Writer, files []File, end bool) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Name, Typeflag: f.Typeflag, Linkname: f.Linkname, Mode: f.Mode, ModTime: Epoch, Format: tar.FormatPAX}
		if hdr.Typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Mode == 0 {
			hdr.Mode = 0o644
		}
		if hdr.Typeflag == tar.TypeReg {
			hdr.Size = int64(len(f.Body))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return fmt.Errorf("tar header %q: %w", f.Name, err)
		}
		if hdr.Typeflag == tar.TypeReg {
			if _, err := io.WriteString(tw, f.Body); err != nil {
				return err
			}
		}
	}
	if end {
		return tw.Close()
	}
	return tw.Flush()
}

func gzipOf(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	g := &gzipStream{w: &buf}
	if err := g.header(); err != nil {
		return nil, err
	}
	if err := g.segment(data, true); err != nil {
		return nil, err
	}
	if err := g.trailer(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// bigArchive writes a .tar.gz of files followed by one entry of size
// bytes: head, chunk repeated, fill bytes up to size less len(tail), then
// tail. The compressed chunk is repeated rather than compressed again,
// so that gigabytes cost a few megabytes and milliseconds; the stream is
// a valid gzip stream, checksum and all.
func bigArchive(files []File, name string, size int64, head, chunk []byte, fill byte, tail []byte) ([]byte, error) {
	a, err := newTgzBuilder(files)
	if err != nil {
		return nil, err
	}
	if err := a.bigEntry(name, size, head, chunk, fill, tail); err != nil {
		return nil, err
	}
	return a.finish()
}

// tgzBuilder writes a .tar.gz whose large parts are one compressed chunk
// repeated (see bigArchive).
type tgzBuilder struct {
	buf bytes.Buffer
	g   gzipStream
}

// newTgzBuilder starts an archive with files.
func newTgzBuilder(files []File) (*tgzBuilder, error) {
	a := &tgzBuilder{}
	a.g.w = &a.buf
	if err := a.g.header(); err != nil {
		return nil, err
	}
	var prefix bytes.Buffer
	if err := writeTar(&prefix, files, false); err != nil {
		return nil, err
	}
	return a, a.g.segment(prefix.Bytes(), false)
}

// bigEntry adds one regular entry of size bytes: head, chunk repeated,
// fill bytes up to size less len(tail), then tail.
func (a *tgzBuilder) bigEntry(name string, size int64, head, chunk []byte, fill byte, tail []byte) error {
	body := size - int64(len(head)) - int64(len(tail))
	if body < 0 {
		return errors.New("contracttest: big entry smaller than its head and tail")
	}
	var prefix bytes.Buffer
	tw := tar.NewWriter(&prefix)
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Size: size, Mode: 0o644, ModTime: Epoch, Format: tar.FormatPAX}); err != nil {
		return err
	}
	// WriteHeader has written the header; the content follows by hand.
	prefix.Write(head)
	if err := a.g.segment(prefix.Bytes(), false); err != nil {
		return err
	}
	if err := a.repeat(chunk, body/int64(len(chunk))); err != nil {
		return err
	}
	var rest bytes.Buffer
	rest.Write(bytes.Repeat([]byte{fill}, int(body%int64(len(chunk)))))
	rest.Write(tail)
	if pad := size % 512; pad != 0 {
		rest.Write(make([]byte, 512-pad))
	}
	return a.g.segment(rest.Bytes(), false)
}

// repeat adds data n times, compressed once: it refers to nothing before it.
func (a *tgzBuilder) repeat(data []byte, n int64) error {
	var cz bytes.Buffer
	fw, err := flate.NewWriter(&cz, flate.BestCompression)
	if err != nil {
		return err
	}
	if _, err := fw.Write(data); err != nil {
		return err
	}
	if err := fw.Flush(); err != nil {
		return err
	}
	for range n {
		a.buf.Write(cz.Bytes())
	}
	a.g.add(data, n)
	return nil
}

// finish ends the archive and the gzip stream.
func (a *tgzBuilder) finish() ([]byte, error) {
	if err := a.g.segment(make([]byte, 1024), true); err != nil { // end of archive
		return nil, err
	}
	if err := a.g.trailer(); err != nil {
		return nil, err
	}
	return a.buf.Bytes(), nil
}

// gzipStream writes a gzip member by hand, so that compressed segments
// can be repeated: header, deflate segments, then the CRC-32 and size of
// everything they hold.
type gzipStream struct {
	w    *bytes.Buffer
	crc  uint32
	size uint64
}

func (g *gzipStream) header() error {
	_, err := g.w.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff})
	return err
}

// add counts data repeated n times, compressed elsewhere.
func (g *gzipStream) add(data []byte, n int64) {
	for range n {
		g.crc = crc32.Update(g.crc, crc32.IEEETable, data)
	}
	g.size += uint64(len(data)) * uint64(n)
}

// segment compresses data on its own; last ends the deflate stream.
func (g *gzipStream) segment(data []byte, last bool) error {
	fw, err := flate.NewWriter(g.w, flate.BestCompression)
	if err != nil {
		return err
	}
	if _, err := fw.Write(data); err != nil {
		return err
	}
	if last {
		err = fw.Close()
	} else {
		err = fw.Flush()
	}
	g.add(data, 1)
	return err
}

func (g *gzipStream) trailer() error {
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:4], g.crc)
	binary.LittleEndian.PutUint32(t[4:], uint32(g.size))
	_, err := g.w.Write(t[:])
	return err
}
