package transform

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/bundlectl/bundlectl/contract"
)

// The converted lists are made once discovery is known, after the stream
// (writeConverted). Reading the bundle a second time for them means
// decompressing all of it again, most of it logs; so the stream keeps the
// few lists that may have another version to be converted to in a spool,
// and writeConverted reads them from there. When a list it needs was not
// kept (a group version only the bundle's own discovery serves, a list
// too large to buffer, a full disk), it reads the bundle again as before.

// convertInput is a list of records the stream read, in stream order.
type convertInput struct {
	hdr     *tar.Header
	rel     string
	class   contract.Classification
	spooled bool
	off     int64 // where its bytes are in the spool
	size    int64 // and how many (a link's header says 0)
}

// convertSpool holds the bytes of the lists that may be converted, in a
// file removed from its folder as soon as it is made (as tables are
// spooled: newTableBody).
type convertSpool struct {
	inputs []convertInput
	file   *os.File
	name   string // the file's name while it has one
	size   int64
	failed bool // a write failed: nothing more is kept
}

// add records a list the stream read, keeping body when keep is set.
func (s *convertSpool) add(e *contract.Entry, body []byte, keep bool) {
	in := convertInput{hdr: e.Header, rel: e.Rel, class: e.Class}
	if keep && body != nil && !s.failed {
		if err := s.write(body); err != nil {
			s.failed = true
		} else {
			in.spooled, in.off, in.size = true, s.size, int64(len(body))
			s.size += int64(len(body))
		}
	}
	s.inputs = append(s.inputs, in)
}

func (s *convertSpool) write(body []byte) error {
	if s.file == nil {
		f, name, err := contract.TempFile("bundlectl-lists-*.json")
		if err != nil {
			return err
		}
		s.file, s.name = f, name
	}
	_, err := s.file.WriteAt(body, s.size)
	return err
}

// read returns the bytes of a kept list.
func (s *convertSpool) read(in convertInput) ([]byte, error) {
	data := make([]byte, in.size)
	if n, err := s.file.ReadAt(data, in.off); n < len(data) {
		return nil, fmt.Errorf("reading %s back from the spool: %d of %d bytes: %w", in.rel, n, len(data), err)
	}
	return data, nil
}

// covers says whether every list wanted is kept.
func (s *convertSpool) covers(wanted func(convertInput) bool) bool {
	for _, in := range s.inputs {
		if !in.spooled && wanted(in) {
			return false
		}
	}
	return true
}

// close removes the spool.
func (s *convertSpool) close() {
	if s.file != nil {
		s.file.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
		s.file = nil
	}
}

// mayConvert says whether a list of gr may have another version to be
// converted to: a group resource stored together with another
// (contract.Cohabitants), one the built-in discovery of the rendered
// release or the bundle's own discovery (or its resources.json) serves at
// more than one version (counted together: a superset is enough), or a custom resource whose
// definition has more than one. It runs on the reader's goroutine.
func (p *pipeline) mayConvert(gr schema.GroupResource, custom bool) bool {
	if len(contract.Cohabitants(gr)) > 0 {
		return true
	}
	if custom {
		crd, ok := p.r.crds.lookup(gr)
		return !ok || len(crd.crd.Spec.Versions) > 1
	}
	count := func(gv string, resources []metav1.APIResource) {
		parsed, err := schema.ParseGroupVersion(gv)
		if err != nil {
			return
		}
		for _, r := range resources {
			if !strings.Contains(r.Name, "/") {
				p.multiVersion[parsed.WithResource(r.Name).GroupResource()]++
			}
		}
	}
	if p.multiVersion == nil {
		p.multiVersion = map[schema.GroupResource]int{}
		for gv, resources := range builtinDiscovery(p.r.minor).Resources {
			count(gv, resources)
		}
		if p.b.DiscoveryJSON != nil {
			if d, err := contract.ParseDiscovery(p.b.DiscoveryJSON); err == nil {
				for gv, resources := range d.Resources {
					count(gv, resources)
				}
			}
		}
	}
	if p.resource != nil && !p.resourceCounted {
		// resources.json, read by now (troubleshoot writes it first).
		p.resourceCounted = true
		var lists []metav1.APIResourceList
		if json.Unmarshal(p.resource, &lists) == nil {
			for _, l := range lists {
				count(l.GroupVersion, l.APIResources)
			}
		}
	}
	return p.multiVersion[gr] > 1
}
