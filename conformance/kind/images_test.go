package kind

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
	"sigs.k8s.io/kind/pkg/apis/config/defaults"

	"github.com/bundlectl/bundlectl/internal/test/gomod"
)

// goModVersion is the version go.mod requires of a module.
func goModVersion(t *testing.T, module string) string {
	t.Helper()
	v, err := gomod.Require("../../go.mod", module)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Bumping sigs.k8s.io/kind means replacing images.yaml with the new
// release's list: node images are supported only with their release.
func TestImagesAreThoseOfTheKindReleaseInGoMod(t *testing.T) {
	if v := goModVersion(t, "sigs.k8s.io/kind"); v != Images.KindRelease {
		t.Errorf("go.mod requires sigs.k8s.io/kind %s, images.yaml lists the images of kind %s: replace the list with the one in %s's release notes",
			v, Images.KindRelease, v)
	}
	if want := "https://github.com/kubernetes-sigs/kind/releases/tag/" + Images.KindRelease; Images.Source != want {
		t.Errorf("source %q, want %s", Images.Source, want)
	}
}

// The default is the image of the pinned Kubernetes minor, and with the
// pinned kind and Kubernetes 1.37 that is kind's own default image.
func TestDefaultImage(t *testing.T) {
	k8s := goModVersion(t, "k8s.io/kubernetes")
	if minor := strings.TrimPrefix(semver.MajorMinor(k8s), "v"); DefaultImage != Images.Images[minor] {
		t.Errorf("DefaultImage %s is not the listed image of Kubernetes %s (go.mod: %s): %s", DefaultImage, minor, k8s, Images.Images[minor])
	}
	if DefaultImage != defaults.Image {
		t.Errorf("DefaultImage %s, kind %s's own default is %s", DefaultImage, Images.KindRelease, defaults.Image)
	}
	if kindDefault := Images.Images[parseImageRef(defaults.Image).minor()]; kindDefault != defaults.Image {
		t.Errorf("kind's default %s is not in the list (%s for its minor)", defaults.Image, kindDefault)
	}
	if ref, warning, err := Images.Resolve("", ""); ref != DefaultImage || warning != "" || err != nil {
		t.Errorf("Resolve with no flag: %q, %q, %v", ref, warning, err)
	}
}

func TestMinors(t *testing.T) {
	if got := Images.Minors(); !slices.Equal(got, []string{"1.37", "1.36", "1.35", "1.34"}) {
		t.Errorf("Minors() = %v", got)
	}
	l := NodeImages{Images: map[string]string{"1.9": "", "1.10": "", "1.100": ""}}
	if got := l.Minors(); !slices.Equal(got, []string{"1.100", "1.10", "1.9"}) {
		t.Errorf("Minors() = %v, want by version", got)
	}
}

func TestResolve(t *testing.T) {
	const v136 = "kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed"
	for _, tc := range []struct {
		name, image, minor string
		ref                string
		warning, err       []string // substrings; none means none
	}{
		{name: "--kind-version", minor: "1.36", ref: v136},
		{name: "--kind-version v", minor: "v1.34", ref: Images.Images["1.34"]},
		{name: "--kind-version unlisted", minor: "1.33",
			err: []string{"--kind-version 1.33: kind v0.33.0 lists no node image for Kubernetes 1.33 (it lists 1.37, 1.36, 1.35, 1.34: https://github.com/kubernetes-sigs/kind/releases/tag/v0.33.0)"}},
		{name: "--kind-version patch", minor: "1.36.4", err: []string{`--kind-version "1.36.4": want a Kubernetes minor such as 1.37`}},
		{name: "both", image: v136, minor: "1.36", err: []string{"exclude each other"}},
		{name: "listed by digest", image: v136, ref: v136},
		{name: "the listed tag bare", image: "kindest/node:v1.36.4", ref: "kindest/node:v1.36.4",
			warning: []string{"kindest/node:v1.36.4 names no digest", "kind v0.33.0 lists " + v136 + " for Kubernetes 1.36"}},
		{name: "another tag of a listed minor", image: "kindest/node:v1.35.4", ref: "kindest/node:v1.35.4",
			warning: []string{"names no digest", "lists " + Images.Images["1.35"] + " for Kubernetes 1.35"}},
		{name: "a bare tag of an unlisted minor", image: "kindest/node:v1.31.2", ref: "kindest/node:v1.31.2",
			warning: []string{"names no digest, and kind v0.33.0 lists no image for its Kubernetes minor (it lists 1.37, 1.36, 1.35, 1.34"}},
		{name: "the listed tag with another digest", image: "kindest/node:v1.36.4@sha256:" + strings.Repeat("0", 64),
			ref: "kindest/node:v1.36.4@sha256:" + strings.Repeat("0", 64), warning: []string{"is not the image kind v0.33.0 lists for that tag: " + v136}},
		{name: "an image of one's own by digest", image: "registry.example:5000/me/node:v1.36.4@sha256:" + strings.Repeat("1", 64),
			ref: "registry.example:5000/me/node:v1.36.4@sha256:" + strings.Repeat("1", 64)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, warning, err := Images.Resolve(tc.image, tc.minor)
			if ref != tc.ref {
				t.Errorf("ref %q, want %q", ref, tc.ref)
			}
			check := func(what, got string, want []string) {
				if len(want) == 0 && got != "" {
					t.Errorf("%s %q, want none", what, got)
				}
				for _, w := range want {
					if !strings.Contains(got, w) {
						t.Errorf("%s %q does not say %q", what, got, w)
					}
				}
			}
			check("warning", warning, tc.warning)
			errText := ""
			if err != nil {
				errText = err.Error()
			}
			check("error", errText, tc.err)
		})
	}
}

func TestParseImagesRefusesWhatIsNotAListOfDigests(t *testing.T) {
	const head = "kindRelease: v0.33.0\nsource: https://github.com/kubernetes-sigs/kind/releases/tag/v0.33.0\n"
	for _, tc := range []struct{ yaml, want string }{
		{head + "images:\n  \"1.37\": kindest/node:v1.37.0\n", "1.37: kindest/node:v1.37.0 is not named by a sha256 digest"},
		{head + "images:\n  \"1.36\": kindest/node:v1.37.0@sha256:" + strings.Repeat("a", 64) + "\n", `is an image of Kubernetes "1.37"`},
		{head + "images:\n  \"v1.37\": kindest/node:v1.37.0@sha256:" + strings.Repeat("a", 64) + "\n", `"v1.37" is not a Kubernetes minor`},
		{head + "images: {}\n", "no images"},
		{"kindRelease: 0.33\nsource: x\nimages: {}\n", `kindRelease "0.33" is not a release`},
		{"kindRelease: v0.33.0\nsource: https://github.com/kubernetes-sigs/kind/releases/tag/v0.32.0\nimages: {}\n", "is not the notes of kind v0.33.0"},
		{head + "image: {}\n", `unknown field "image"`},
	} {
		_, err := parseImages([]byte(tc.yaml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.yaml, err, tc.want)
		}
	}
	if _, err := parseImages(imagesYAML); err != nil {
		t.Errorf("images.yaml: %v", err)
	}
}

func TestParseImageRef(t *testing.T) {
	for s, want := range map[string]imageRef{
		"kindest/node:v1.35.4":              {name: "kindest/node", tag: "v1.35.4"},
		"kindest/node:v1.35.0@sha256:abc":   {name: "kindest/node", tag: "v1.35.0", digest: "sha256:abc"},
		"localhost:5000/kindest/node:v1.35": {name: "localhost:5000/kindest/node", tag: "v1.35"},
		"localhost:5000/kindest/node":       {name: "localhost:5000/kindest/node"},
		"kindest/node@sha256:abc":           {name: "kindest/node", digest: "sha256:abc"},
	} {
		if got := parseImageRef(s); got != want {
			t.Errorf("%s: %+v, want %+v", s, got, want)
		}
	}
}
