package kind

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/semver"
	"sigs.k8s.io/yaml"

	"github.com/bundlectl/bundlectl/contract"
)

// NodeImages is the list of node images one kind release publishes: kind
// supports an image only with the release that built it, named by digest.
type NodeImages struct {
	// KindRelease is the sigs.k8s.io/kind release the images are for.
	KindRelease string `json:"kindRelease"`
	// Source is where the list was read: the release's notes.
	Source string `json:"source"`
	// Images maps a Kubernetes minor ("1.37") to its image by digest.
	Images map[string]string `json:"images"`
}

//go:embed images.yaml
var imagesYAML []byte

// Images is the list of the kind release bundlectl is built with.
var Images = mustParseImages(imagesYAML)

// DefaultImage is the listed image of the Kubernetes minor bundlectl pins.
var DefaultImage = Images.Images[contract.PinnedMinor]

func mustParseImages(data []byte) NodeImages {
	l, err := parseImages(data)
	if err != nil {
		panic("conformance/kind: images.yaml: " + err.Error())
	}
	if _, ok := l.Images[contract.PinnedMinor]; !ok {
		panic(fmt.Sprintf("conformance/kind: images.yaml: kind %s lists no image for the pinned Kubernetes %s", l.KindRelease, contract.PinnedMinor))
	}
	return l
}

var (
	minorRE  = regexp.MustCompile(`^1\.[0-9]+$`)
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

func parseImages(data []byte) (NodeImages, error) {
	var l NodeImages
	if err := yaml.UnmarshalStrict(data, &l); err != nil {
		return l, err
	}
	if !semver.IsValid(l.KindRelease) {
		return l, fmt.Errorf("kindRelease %q is not a release such as v0.33.0", l.KindRelease)
	}
	if !strings.HasSuffix(l.Source, "/releases/tag/"+l.KindRelease) {
		return l, fmt.Errorf("source %q is not the notes of kind %s", l.Source, l.KindRelease)
	}
	if len(l.Images) == 0 {
		return l, fmt.Errorf("no images")
	}
	for minor, image := range l.Images {
		ref := parseImageRef(image)
		switch {
		case !minorRE.MatchString(minor):
			return l, fmt.Errorf("%q is not a Kubernetes minor such as 1.37", minor)
		case !digestRE.MatchString(ref.digest):
			return l, fmt.Errorf("%s: %s is not named by a sha256 digest", minor, image)
		case ref.minor() != minor:
			return l, fmt.Errorf("%s: %s is an image of Kubernetes %q", minor, image, ref.minor())
		}
	}
	return l, nil
}

// Minors lists the minors with an image, newest first.
func (l NodeImages) Minors() []string {
	out := make([]string, 0, len(l.Images))
	for m := range l.Images {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b string) int { return semver.Compare("v"+b, "v"+a) })
	return out
}

// Resolve picks the node image of a run from the flags: the listed image
// of minor (--kind-version), or image as given (--kind-image), or
// DefaultImage. An image that is not a listed one by digest is used all
// the same, with a warning that names the listed image of its minor.
func (l NodeImages) Resolve(image, minor string) (ref, warning string, err error) {
	switch {
	case image != "" && minor != "":
		return "", "", fmt.Errorf("--kind-image and --kind-version exclude each other")
	case minor != "":
		m := strings.TrimPrefix(minor, "v")
		if !minorRE.MatchString(m) {
			return "", "", fmt.Errorf("--kind-version %q: want a Kubernetes minor such as %s", minor, contract.PinnedMinor)
		}
		listed, ok := l.Images[m]
		if !ok {
			return "", "", fmt.Errorf("--kind-version %s: kind %s lists no node image for Kubernetes %s (it lists %s: %s); pass --kind-image to use another image",
				minor, l.KindRelease, m, strings.Join(l.Minors(), ", "), l.Source)
		}
		return listed, "", nil
	case image == "":
		return l.Images[contract.PinnedMinor], "", nil
	}
	r := parseImageRef(image)
	listed, ok := l.Images[r.minor()]
	switch {
	case r.digest == "" && ok:
		warning = fmt.Sprintf("%s names no digest, so it may be an image built for another kind release; kind %s lists %s for Kubernetes %s (%s)",
			image, l.KindRelease, listed, r.minor(), l.Source)
	case r.digest == "":
		warning = fmt.Sprintf("%s names no digest, and kind %s lists no image for its Kubernetes minor (it lists %s: %s), so it may not work with this kind release",
			image, l.KindRelease, strings.Join(l.Minors(), ", "), l.Source)
	case ok && parseImageRef(listed).tagged() == r.tagged() && listed != image:
		warning = fmt.Sprintf("%s is not the image kind %s lists for that tag: %s (%s)", image, l.KindRelease, listed, l.Source)
	}
	return image, warning, nil
}

// imageRef is a parsed image reference: name[:tag][@digest].
type imageRef struct {
	name, tag, digest string
}

func parseImageRef(s string) imageRef {
	var r imageRef
	s, r.digest, _ = strings.Cut(s, "@")
	// A tag follows the last colon after the last slash; a colon before
	// it belongs to a registry's port.
	if i := strings.LastIndexByte(s, ':'); i > strings.LastIndexByte(s, '/') {
		s, r.tag = s[:i], s[i+1:]
	}
	r.name = s
	return r
}

func (r imageRef) tagged() string { return r.name + ":" + r.tag }

// minor is the Kubernetes minor of a node image's tag ("v1.37.0" →
// "1.37"), or "" when the tag is no version.
func (r imageRef) minor() string {
	if !semver.IsValid(r.tag) {
		return ""
	}
	return strings.TrimPrefix(semver.MajorMinor(r.tag), "v")
}
