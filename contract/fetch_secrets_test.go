package contract_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/bundlectl/bundlectl/contract"
)

// A token as stores issue them, with the characters that encodings
// change: "/" and "+" (base64's), which JSON and URLs escape.
const echoToken = "tok/en+Zm9vYmFyYmF6cXV4-0123456789"

// jsonEscaped writes every character of s as a \u escape, as a JSON
// encoder may.
func jsonEscaped(s string) string {
	var b strings.Builder
	for _, c := range s {
		fmt.Fprintf(&b, `\u%04X`, c)
	}
	return b.String()
}

// percentAll percent-encodes every byte of s, in lower-case hex.
func percentAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02x", s[i])
	}
	return b.String()
}

// An error body is masked before it is shortened, in every form a store
// can echo a secret in: the token as sent, right where the shown part
// used to cut it; base64 (a header dump encoded whole); JSON-escaped;
// percent-encoded; and the signed link's own query values.
func TestFetchMasksEchoedSecrets(t *testing.T) {
	const sig = "AbCdEf0123456789SignatureValue"
	dump := base64.StdEncoding.EncodeToString([]byte("GET /b.tgz HTTP/1.1\r\nAuthorization: Bearer " + echoToken + "\r\n"))
	bodies := map[string]string{
		"raw, where the message is cut": strings.Repeat("x", 190) + " " + echoToken,
		"base64":                        "request dump: " + dump,
		"base64 wrapped":                "request dump:\n" + dump[:40] + "\n" + dump[40:],
		"JSON-escaped":                  `{"message":"bad token","token":"` + strings.ReplaceAll(echoToken, "/", `\/`) + `","again":"` + jsonEscaped(echoToken) + `"}`,
		"percent-encoded":               "token=" + url.QueryEscape(echoToken) + "&all=" + percentAll(echoToken),
		"a cut Authorization header":    "Authorization: Bearer " + echoToken[:12] + "...",
		"the link's signature":          "<Error><SignatureProvided>" + sig + "</SignatureProvided></Error>",
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			srv, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, body)
			}))
			o.Token = echoToken
			_, err := contract.OpenContext(context.Background(), srv.URL+"/b.tgz?X-Amz-Signature="+sig, contract.OpenOptions{HTTP: o})
			if err == nil {
				t.Fatal("opened")
			}
			msg := err.Error()
			for _, secret := range []string{echoToken[:8], echoToken[len(echoToken)-8:], sig[:8], dump[20:40], "Zm9vYmFy", jsonEscaped(echoToken)[:30], "tok%2Fen", percentAll(echoToken)[:30]} {
				if strings.Contains(strings.ToLower(msg), strings.ToLower(secret)) {
					t.Errorf("the message gives %q away: %s", secret, msg)
				}
			}
			if !strings.Contains(msg, "REDACTED") || !strings.Contains(msg, "401 Unauthorized") {
				t.Errorf("message %q", msg)
			}
		})
	}
}

// A redirect's Location is never printed whole: Go's HTTP client repeats
// one it cannot follow, signed query and all.
func TestFetchRedirectLocationRedacted(t *testing.T) {
	const sig = "LocationSignature0123456789"
	for _, loc := range []string{"https://127.0.0.1:1/%zz?X-Amz-Signature=" + sig, "/%zz?sig=" + sig, "https://user:" + sig + "@127.0.0.1:1/b.tgz"} {
		srv, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", loc)
			w.WriteHeader(http.StatusFound)
		}))
		_, err := contract.OpenContext(context.Background(), srv.URL+"/b.tgz", contract.OpenOptions{HTTP: o})
		if err == nil || strings.Contains(err.Error(), sig) || !strings.HasPrefix(err.Error(), srv.URL+"/b.tgz: ") {
			t.Errorf("Location %s: error %v", loc, err)
		}
	}
}

// A URL's user information is refused with an error that says so (and
// not what it holds), before anything is sent: never dropped silently.
func TestFetchUserInfoRefused(t *testing.T) {
	var asked atomic.Bool
	srv, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Store(true) }))
	u := strings.Replace(srv.URL, "https://", "https://alice:pa55word-secret@", 1) + "/b.tgz"
	_, err := contract.OpenContext(context.Background(), u, contract.OpenOptions{HTTP: o})
	if err == nil || !strings.Contains(err.Error(), "user name or password") || strings.Contains(err.Error(), "pa55word") || strings.Contains(err.Error(), "alice") {
		t.Errorf("error %v, want the user information refused and not repeated", err)
	}
	if asked.Load() {
		t.Error("the server was asked")
	}
	if got := contract.SourceName("https://example.com/b.tgz?bare-secret-key"); strings.Contains(got, "bare-secret-key") {
		t.Errorf("SourceName = %s: a query of one bare value is named", got)
	}
}

// garbage is an endless stream of bytes that are no archive, counting
// what was read of it.
type garbage struct {
	head []byte
	n    atomic.Int64
}

func (g *garbage) Read(p []byte) (int, error) {
	n := copy(p, g.head[min(int(g.n.Load()), len(g.head)):])
	for i := n; i < len(p); i++ {
		p[i] = byte('a' + i%26)
	}
	g.n.Add(int64(len(p)))
	return len(p), nil
}

// What is no archive is refused from its first bytes, on standard input
// and from a URL, not spooled whole first: a few KB of a 256 MiB stream.
func TestNotAnArchiveRefusedEarly(t *testing.T) {
	limits := contract.Limits{MaxEntrySize: 1 << 20, MaxTotalSize: 256 << 20, MaxDecodeSize: 1 << 20}
	for _, head := range []string{"", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"} { // text, and a gzip header before it
		g := &garbage{head: []byte(head)}
		_, err := contract.OpenContext(context.Background(), "-", contract.OpenOptions{Stdin: g, Limits: limits})
		if err == nil || !strings.Contains(err.Error(), "not a ") {
			t.Errorf("stdin %q...: err = %v, want it refused as no archive", head, err)
		}
		if n := g.n.Load(); n > 1<<20 {
			t.Errorf("stdin %q...: read %d bytes before refusing it", head, n)
		}
	}
	var sent atomic.Int64
	srv, o := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("<html>login</html>"), 2000)
		for {
			n, err := w.Write(chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	_, err := contract.OpenContext(context.Background(), srv.URL+"/b.tgz", contract.OpenOptions{HTTP: o, Limits: limits})
	if err == nil || !strings.Contains(err.Error(), "not a tar") {
		t.Errorf("URL: err = %v, want it refused as no archive", err)
	}
	srv.CloseClientConnections()
	if n := sent.Load(); n > 32<<20 {
		t.Errorf("URL: the server sent %d bytes before the download was refused", n)
	}
}
