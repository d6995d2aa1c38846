package conformance

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"regexp"
	"strings"
	"text/template"

	"sigs.k8s.io/yaml"

	"github.com/bundlectl/bundlectl/conformance/fixtures"
)

// fixtureRunLabel selects the objects of one fixtures run.
const fixtureRunLabel = fixtures.LabelRun

// defaultChecks is the command matrix the gate runs; see checks.yaml.
//
//go:embed checks.yaml
var defaultChecks []byte

// DefaultChecks returns the embedded checks file, for users who want to
// start their own from it.
func DefaultChecks() []byte { return append([]byte(nil), defaultChecks...) }

// ChecksFile is the format of checks.yaml and of the files --checks adds.
type ChecksFile struct {
	// Resources holds what applies to every case about a resource,
	// keyed by group resource ("componentstatuses", "deployments.apps").
	Resources map[string]ResourceRule `json:"resources,omitempty"`
	Checks    []CheckSpec             `json:"checks"`
}

// ResourceRule adds normalizations to every check of one resource, Gate
// A's table comparison included, with the reason they are needed.
type ResourceRule struct {
	Normalize []string `json:"normalize"`
	Reason    string   `json:"reason"`
}

// CheckSpec is one entry of the command matrix: a kubectl command or a
// raw request, run the same way against the live cluster and the served
// bundle, once or once per resource, object, namespace or log.
type CheckSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// For is what the check is expanded over: "" (once), "resources",
	// "objects", "namespaces" (the fixture namespaces) or "logs".
	For   string `json:"for,omitempty"`
	Where Where  `json:"where,omitempty"`
	// Kubectl is kubectl's arguments, each a Go template (see CaseData);
	// arguments that render empty are dropped.
	Kubectl []string `json:"kubectl,omitempty"`
	// Request is a raw HTTP request, for what kubectl cannot send.
	Request *RequestSpec `json:"request,omitempty"`
	// Compare names the outputs compared: stdout, stderr, exitCode for
	// kubectl (default all three); status, contentType, body for
	// requests (default all three).
	Compare []string `json:"compare,omitempty"`
	// Normalize names the normalizations that apply (see Normalizations).
	Normalize []string `json:"normalize,omitempty"`
}

// RequestSpec is a raw request; Path, Accept and Body are templates.
type RequestSpec struct {
	Method string `json:"method,omitempty"` // default GET
	Path   string `json:"path"`
	Accept string `json:"accept,omitempty"`
	Body   string `json:"body,omitempty"`
}

// Where filters what a check is expanded over.
type Where struct {
	// Resources and Exclude are group resources ("pods",
	// "deployments.apps") the check is limited to, or skips.
	Resources []string `json:"resources,omitempty"`
	Exclude   []string `json:"exclude,omitempty"`
	// Namespaced limits to namespaced (true) or cluster-scoped (false)
	// resources.
	Namespaced *bool `json:"namespaced,omitempty"`
	// Verbs the resource must support.
	Verbs []string `json:"verbs,omitempty"`
	// HasObjects skips resources the bundle holds no object of (in the
	// namespace the case uses).
	HasObjects bool `json:"hasObjects,omitempty"`
	// Fixtures limits to the run's fixtures: objects carrying the run's
	// label; for other expansions, the check is skipped when the run
	// applied no fixtures.
	Fixtures bool `json:"fixtures,omitempty"`
	// PerResource keeps at most this many objects of each resource.
	PerResource int `json:"perResource,omitempty"`
}

// Expansions of CheckSpec.For.
const (
	ForOnce       = ""
	ForResources  = "resources"
	ForObjects    = "objects"
	ForNamespaces = "namespaces"
	ForLogs       = "logs"
)

var checkNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// ParseChecks reads a checks file and checks every entry and template.
func ParseChecks(name string, data []byte) (*ChecksFile, error) {
	var f ChecksFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for gr, rule := range f.Resources {
		for _, n := range rule.Normalize {
			if !knownNormalization(n) {
				return nil, fmt.Errorf("%s: resources: %s: unknown normalization %q (known: %s)", name, gr, n, strings.Join(Normalizations, ", "))
			}
		}
		if strings.TrimSpace(rule.Reason) == "" {
			return nil, fmt.Errorf("%s: resources: %s: a reason is required", name, gr)
		}
	}
	seen := map[string]bool{}
	for i := range f.Checks {
		c := &f.Checks[i]
		if err := c.validate(); err != nil {
			return nil, fmt.Errorf("%s: check %d (%s): %w", name, i+1, c.Name, err)
		}
		if seen[c.Name] {
			return nil, fmt.Errorf("%s: check %q is defined twice", name, c.Name)
		}
		seen[c.Name] = true
	}
	return &f, nil
}

func (c *CheckSpec) validate() error {
	if !checkNameRE.MatchString(c.Name) {
		return fmt.Errorf("name %q: use lower-case letters, digits, dots and dashes", c.Name)
	}
	switch c.For {
	case ForOnce, ForResources, ForObjects, ForNamespaces, ForLogs:
	default:
		return fmt.Errorf("for: %q is not one of resources, objects, namespaces, logs (or empty for once)", c.For)
	}
	if (len(c.Kubectl) == 0) == (c.Request == nil) {
		return fmt.Errorf("give either kubectl or request")
	}
	allowed := map[string]bool{"stdout": true, "stderr": true, "exitCode": true}
	if c.Request != nil {
		allowed = map[string]bool{"status": true, "contentType": true, "body": true}
		if c.Request.Path == "" {
			return fmt.Errorf("request: path is required")
		}
		switch c.Request.Method {
		case "", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		default:
			return fmt.Errorf("request: method %q", c.Request.Method)
		}
	}
	for _, o := range c.Compare {
		if !allowed[o] {
			return fmt.Errorf("compare: %q cannot be compared for this check", o)
		}
	}
	for _, n := range c.Normalize {
		if !knownNormalization(n) {
			return fmt.Errorf("normalize: unknown normalization %q (known: %s)", n, strings.Join(Normalizations, ", "))
		}
	}
	for _, t := range c.templates() {
		if _, err := parseTemplate(t); err != nil {
			return err
		}
	}
	return nil
}

func (c *CheckSpec) templates() []string {
	if c.Request != nil {
		return []string{c.Request.Path, c.Request.Accept, c.Request.Body}
	}
	return c.Kubectl
}

// compared is Compare with its default.
func (c *CheckSpec) compared() []string {
	if len(c.Compare) > 0 {
		return c.Compare
	}
	if c.Request != nil {
		return []string{"status", "contentType", "body"}
	}
	return []string{"stdout", "stderr", "exitCode"}
}

func parseTemplate(t string) (*template.Template, error) {
	return template.New("").Option("missingkey=error").Parse(t)
}

// LoadChecks reads the embedded checks and then each file in extra; the
// names of all checks must be distinct.
func LoadChecks(extra []string) (*ChecksFile, error) {
	all, err := ParseChecks("checks.yaml (embedded)", defaultChecks)
	if err != nil {
		return nil, err
	}
	for _, path := range extra {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		f, err := ParseChecks(path, data)
		if err != nil {
			return nil, err
		}
		if err := all.merge(path, f); err != nil {
			return nil, err
		}
	}
	return all, nil
}

func (f *ChecksFile) merge(name string, g *ChecksFile) error {
	seen := map[string]bool{}
	for _, c := range f.Checks {
		seen[c.Name] = true
	}
	for _, c := range g.Checks {
		if seen[c.Name] {
			return fmt.Errorf("%s: check %q is already defined", name, c.Name)
		}
		f.Checks = append(f.Checks, c)
	}
	if f.Resources == nil {
		f.Resources = map[string]ResourceRule{}
	}
	for gr, rule := range g.Resources {
		r := f.Resources[gr]
		r.Normalize = append(r.Normalize, rule.Normalize...)
		r.Reason = strings.TrimSpace(r.Reason + " " + rule.Reason)
		f.Resources[gr] = r
	}
	return nil
}

// CaseData is what the templates of a check see.
type CaseData struct {
	// Prefix names the fixtures run, Selector selects its objects
	// (bundlectl.dev/fixture-run=<prefix>) and Namespaces are its
	// namespaces; all empty when no fixtures were applied.
	Prefix     string
	Selector   string
	Namespaces []string

	// Resource is kubectl's argument for the resource ("pods",
	// "deployments.v1.apps"); GroupResource names it ("deployments.apps").
	Resource, GroupResource      string
	Group, Version, Plural, Kind string
	Namespaced                   bool

	// Namespace is the object's namespace, or for a resource the fixture
	// namespace holding most of its objects, or for a namespace check the
	// namespace; NamespaceFlag is "--namespace=<ns>" for namespaced
	// resources and namespace checks, else empty (dropped).
	Namespace, NamespaceFlag string
	// Name is the object's name, or for a resource its first object in
	// Namespace (empty when it has none).
	Name string

	// CollectionPath and ObjectPath are the API paths of the resource's
	// list in Namespace and of the object.
	CollectionPath, ObjectPath string

	// Pod, Container and Previous name a log.
	Pod, Container string
	Previous       bool
}

// Case is one expanded check: what to run and what to compare.
type Case struct {
	ID        string // <check>[/<subject>], what the report and the baseline name
	Check     string
	Resource  string // group resource the case is about, if any
	Kubectl   []string
	Request   *RequestSpec
	Compare   []string
	Normalize []string
}

// Command is what a case runs, as a person would type it.
func (c Case) Command() string {
	if c.Request != nil {
		s := c.Request.Method + " " + c.Request.Path
		if c.Request.Accept != "" {
			s += " (Accept: " + c.Request.Accept + ")"
		}
		return s
	}
	if c.Kubectl == nil {
		return ""
	}
	q := make([]string, len(c.Kubectl))
	for i, a := range c.Kubectl {
		q[i] = shellQuote(a)
	}
	return "kubectl " + strings.Join(q, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=./,:@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// expandContext is what Expand needs besides the checks.
type expandContext struct {
	inv        *Inventory
	prefix     string
	namespaces []string
	resources  map[string]ResourceRule
}

// Expand turns the checks into cases over the inventory.
func (f *ChecksFile) Expand(inv *Inventory, prefix string, namespaces []string) ([]Case, error) {
	x := expandContext{inv: inv, prefix: prefix, namespaces: namespaces, resources: f.Resources}
	var out []Case
	for i := range f.Checks {
		cases, err := x.expand(&f.Checks[i])
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", f.Checks[i].Name, err)
		}
		out = append(out, cases...)
	}
	return out, nil
}

func (x *expandContext) base() CaseData {
	d := CaseData{Prefix: x.prefix, Namespaces: x.namespaces}
	if x.prefix != "" {
		d.Selector = fixtureRunLabel + "=" + x.prefix
	}
	if len(x.namespaces) > 0 {
		d.Namespace = x.namespaces[0]
	}
	return d
}

func (x *expandContext) expand(c *CheckSpec) ([]Case, error) {
	type subject struct {
		id   string
		data CaseData
		res  string
	}
	var subjects []subject
	fixtures := x.prefix != ""
	switch c.For {
	case ForOnce:
		if c.Where.Fixtures && !fixtures {
			return nil, nil
		}
		subjects = append(subjects, subject{id: c.Name, data: x.base()})
	case ForNamespaces:
		for _, ns := range x.namespaces {
			d := x.base()
			d.Namespace, d.NamespaceFlag = ns, "--namespace="+ns
			subjects = append(subjects, subject{id: c.Name + "/" + ns, data: d})
		}
	case ForLogs:
		for _, l := range x.inv.Logs {
			// The bundle may hold more namespaces than the cases compare
			// (a kind cluster's own pods, whose logs grow).
			if len(x.namespaces) > 0 && !contains(x.namespaces, l.Namespace) {
				continue
			}
			d := x.base()
			d.Namespace, d.NamespaceFlag, d.Pod, d.Container, d.Previous = l.Namespace, "--namespace="+l.Namespace, l.Pod, l.Container, l.Previous
			id := c.Name + "/" + l.Namespace + "/" + l.Pod + "/" + l.Container
			if l.Previous {
				id += "-previous"
			}
			subjects = append(subjects, subject{id: id, data: d, res: "pods"})
		}
	case ForResources, ForObjects:
		if c.Where.Fixtures && !fixtures && c.For == ForResources {
			return nil, nil
		}
		for _, r := range x.inv.Resources {
			if !x.matches(c.Where, r) {
				continue
			}
			if c.For == ForResources {
				d := x.resourceData(r)
				if c.Where.HasObjects && d.Name == "" {
					continue
				}
				subjects = append(subjects, subject{id: c.Name + "/" + r.CaseName(), data: d, res: r.GroupResource()})
				continue
			}
			n := 0
			for _, o := range r.Objects {
				if c.Where.Fixtures && (!fixtures || o.Labels[fixtureRunLabel] != x.prefix) {
					continue
				}
				if c.Where.PerResource > 0 && n >= c.Where.PerResource {
					break
				}
				n++
				d := x.objectData(r, o)
				id := c.Name + "/" + r.CaseName() + "/"
				if o.Namespace != "" {
					id += o.Namespace + "/"
				}
				subjects = append(subjects, subject{id: id + o.Name, data: d, res: r.GroupResource()})
			}
		}
	}
	var out []Case
	for _, s := range subjects {
		k := Case{ID: s.id, Check: c.Name, Resource: s.res, Compare: c.compared()}
		k.Normalize = append(k.Normalize, c.Normalize...)
		if rule, ok := x.resources[s.res]; ok && s.res != "" {
			k.Normalize = append(k.Normalize, rule.Normalize...)
		}
		var err error
		if c.Request != nil {
			k.Request = &RequestSpec{Method: c.Request.Method}
			if k.Request.Method == "" {
				k.Request.Method = "GET"
			}
			if k.Request.Path, err = render(c.Request.Path, s.data); err == nil {
				if k.Request.Accept, err = render(c.Request.Accept, s.data); err == nil {
					k.Request.Body, err = render(c.Request.Body, s.data)
				}
			}
		} else {
			for _, a := range c.Kubectl {
				var v string
				if v, err = render(a, s.data); err != nil {
					break
				}
				if v != "" {
					k.Kubectl = append(k.Kubectl, v)
				}
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.id, err)
		}
		out = append(out, k)
	}
	return out, nil
}

func (x *expandContext) matches(w Where, r *Resource) bool {
	gr := r.GroupResource()
	if len(w.Resources) > 0 && !contains(w.Resources, gr) {
		return false
	}
	if contains(w.Exclude, gr) {
		return false
	}
	if w.Namespaced != nil && *w.Namespaced != r.Namespaced {
		return false
	}
	for _, v := range w.Verbs {
		if !r.hasVerb(v) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (x *expandContext) resourceFields(r *Resource) CaseData {
	d := x.base()
	d.Resource, d.GroupResource = r.Arg(), r.GroupResource()
	d.Group, d.Version, d.Plural, d.Kind, d.Namespaced = r.Group, r.Version, r.Plural, r.Kind, r.Namespaced
	return d
}

// resourceData picks the namespace and the object a resource's cases use:
// the fixture namespace (without fixtures, any namespace) with the most
// objects of the resource, the first on a tie, and its first object,
// preferring the run's own objects.
func (x *expandContext) resourceData(r *Resource) CaseData {
	d := x.resourceFields(r)
	if r.Namespaced {
		candidates := x.namespaces
		if len(candidates) == 0 {
			for _, o := range r.Objects {
				if !contains(candidates, o.Namespace) {
					candidates = append(candidates, o.Namespace)
				}
			}
		}
		best := -1
		for _, ns := range candidates {
			n := 0
			for _, o := range r.Objects {
				if o.Namespace == ns {
					n++
				}
			}
			if n > best {
				best, d.Namespace = n, ns
			}
		}
		if d.Namespace == "" {
			d.Namespace = "default"
		}
		d.NamespaceFlag = "--namespace=" + d.Namespace
	} else {
		d.Namespace = ""
	}
	var first, own string
	for _, o := range r.Objects {
		if r.Namespaced && o.Namespace != d.Namespace {
			continue
		}
		if first == "" {
			first = o.Name
		}
		if own == "" && x.prefix != "" && o.Labels[fixtureRunLabel] == x.prefix {
			own = o.Name
		}
	}
	d.Name = first
	if own != "" {
		d.Name = own
	}
	d.CollectionPath = r.CollectionPath(d.Namespace)
	if d.Name != "" {
		d.ObjectPath = d.CollectionPath + "/" + d.Name
	}
	return d
}

func (x *expandContext) objectData(r *Resource, o ObjectRef) CaseData {
	d := x.resourceFields(r)
	d.Namespace, d.Name = o.Namespace, o.Name
	if r.Namespaced {
		d.NamespaceFlag = "--namespace=" + o.Namespace
	}
	d.CollectionPath = r.CollectionPath(o.Namespace)
	d.ObjectPath = d.CollectionPath + "/" + o.Name
	return d
}

func render(t string, d CaseData) (string, error) {
	if !strings.Contains(t, "{{") {
		return t, nil
	}
	tmpl, err := parseTemplate(t)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}
