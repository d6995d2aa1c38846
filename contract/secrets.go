package contract

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// What a store answers may repeat what it was sent: an error page that
// echoes the request's headers holds the token, in any of the forms a
// server writes text in. Every message about a download is masked before
// it is shortened or printed (maskSecrets), and names URLs only without
// their query and user information (scrubURLs).

// minSecret is the shortest query value taken for a secret: shorter ones
// ("1", "true") would mask words of the message, and guessing them gives
// nothing away.
const minSecret = 8

// secretsOf are the values a download's messages must not repeat: the
// token, and the user information and query values of the URLs asked.
func secretsOf(token string, urls ...*url.URL) []string {
	var s []string
	if token != "" {
		s = append(s, token)
	}
	for _, u := range urls {
		if u == nil {
			continue
		}
		if u.User != nil {
			s = append(s, u.User.Username())
			if pw, ok := u.User.Password(); ok {
				s = append(s, pw)
			}
		}
		for _, vs := range u.Query() {
			s = append(s, vs...)
		}
	}
	var out []string
	for _, v := range s {
		if len(v) >= minSecret || v == token && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// authValue is what follows an authorization scheme in an echoed header:
// masked whatever it is, a token cut short by the server included.
var authValue = regexp.MustCompile(`(?i)\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/]+=*`)

// maskSecrets replaces in text every copy of each secret: as sent,
// percent-encoded (%41 for A, in any mix), JSON-escaped (\u0041, \/),
// and base64-encoded in any alignment (inside a Basic header, or a
// header dump encoded whole).
func maskSecrets(text string, secrets []string) string {
	for _, s := range secrets {
		text = maskBase64(text, s)
		text = encodedForms(s).ReplaceAllString(text, "REDACTED")
	}
	return text
}

// maskServerText is maskSecrets for what a server wrote, where every
// credential after "Bearer" or "Basic" is masked too.
func maskServerText(text string, secrets []string) string {
	return authValue.ReplaceAllString(maskSecrets(text, secrets), "${1}${2}REDACTED")
}

// encodedForms matches a secret with each byte as itself, percent-encoded
// or JSON-escaped.
func encodedForms(secret string) *regexp.Regexp {
	var b strings.Builder
	for i := 0; i < len(secret); i++ {
		c := secret[i]
		alts := []string{regexp.QuoteMeta(string(c)), fmt.Sprintf(`%%(?i:%02x)`, c)}
		if c < 0x80 {
			alts = append(alts, fmt.Sprintf(`\\u(?i:%04x)`, c))
			if c == '/' || c == '"' || c == '\\' {
				alts = append(alts, regexp.QuoteMeta(`\`+string(c)))
			}
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return regexp.MustCompile(b.String())
}

// base64Runs are the runs of text a base64 copy can hide in, for the
// standard and the URL alphabet, with the line breaks of wrapped base64.
var base64Runs = []struct {
	run *regexp.Regexp
	enc *base64.Encoding
}{
	{regexp.MustCompile(`[A-Za-z0-9+/\r\n]+=*`), base64.RawStdEncoding},
	{regexp.MustCompile(`[A-Za-z0-9\-_\r\n]+=*`), base64.RawURLEncoding},
}

// maskBase64 replaces each run of base64 text that decodes, in one of
// its four alignments, to bytes holding the secret.
func maskBase64(text, secret string) string {
	minRun := len(secret) * 4 / 3
	for _, b := range base64Runs {
		text = b.run.ReplaceAllStringFunc(text, func(run string) string {
			chars := strings.Map(func(r rune) rune {
				if r == '\r' || r == '\n' || r == '=' {
					return -1
				}
				return r
			}, run)
			if len(chars) < minRun {
				return run
			}
			for off := range 4 {
				s := chars[off:]
				s = s[:len(s)-len(s)%4]
				if dec, err := b.enc.DecodeString(s); err == nil && bytes.Contains(dec, []byte(secret)) {
					return "REDACTED"
				}
			}
			return run
		})
	}
	return text
}

// anyURL is a URL in a message: a scheme, "://", and what follows up to
// a space or a quote, but for the punctuation of the sentence after it.
var anyURL = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>]*[^\s"'<>).,;:!?\]]`)

// quotedQuery is a quoted string holding a query (a relative Location
// the client could not follow): its query is cut.
var quotedQuery = regexp.MustCompile(`("[^"\s]*\?)[^"\s]*"`)

// scrubURLs names every URL in a message without its query and user
// information (as SourceName does), and cuts the query of any other
// quoted reference, so that no signed link reaches a message: Go's HTTP
// client repeats a Location it could not follow whole.
func scrubURLs(msg string) string {
	msg = anyURL.ReplaceAllStringFunc(msg, func(s string) string {
		u, err := url.Parse(s)
		if err != nil {
			scheme, _, _ := strings.Cut(s, ":")
			return scheme + "://(unparsable URL)"
		}
		return redact(u)
	})
	return quotedQuery.ReplaceAllString(msg, `${1}REDACTED"`)
}
