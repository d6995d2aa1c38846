package app

import (
	"crypto/x509"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bundlectl/bundlectl/contract"
)

// sourceFlags are the flags of every command that opens bundles, for
// bundles named by an https:// URL. There is no --token flag: a token
// on the command line is in the shell's history and in ps for every user
// of the machine; a file or the environment is neither.
type sourceFlags struct {
	tokenFile string
	caFile    string
	allowHTTP bool
	timeout   time.Duration
}

func (s *sourceFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&s.tokenFile, "token-file", "", "file holding a bearer token for bundles named by an https:// URL (default: $"+contract.TokenEnv+"); sent only to the URL's own host and port, never after a redirect to another")
	cmd.Flags().StringVar(&s.caFile, "certificate-authority", "", "PEM file of certificate authorities trusted for bundle URLs, besides the system's")
	cmd.Flags().BoolVar(&s.allowHTTP, "allow-http-url", false, "allow bundles named by a plain http:// URL (the bundle and any token cross the network unencrypted)")
	cmd.Flags().DurationVar(&s.timeout, "url-timeout", contract.DefaultFetchTimeout, "how long a bundle URL's server may take to answer, and stay silent while sending the bundle, before the download fails")
}

// options reads the token and the certificate authorities. A token file's
// surrounding white space (its final newline) is not part of the token. A
// zero timeout is the default (options built without flags, in tests).
func (s *sourceFlags) options() (contract.HTTPOptions, error) {
	o := contract.HTTPOptions{AllowHTTP: s.allowHTTP, Timeout: s.timeout, Token: os.Getenv(contract.TokenEnv)}
	if s.timeout < 0 {
		return o, fmt.Errorf("--url-timeout %s: must not be negative", s.timeout)
	}
	if s.tokenFile != "" {
		data, err := os.ReadFile(s.tokenFile)
		if err != nil {
			return o, fmt.Errorf("--token-file: %w", err)
		}
		if o.Token = strings.TrimSpace(string(data)); o.Token == "" {
			return o, fmt.Errorf("--token-file %s: the file is empty", s.tokenFile)
		}
	}
	if strings.ContainsAny(o.Token, "\r\n") {
		return o, fmt.Errorf("the bearer token holds a line break: it must be one line")
	}
	if s.caFile != "" {
		data, err := os.ReadFile(s.caFile)
		if err != nil {
			return o, fmt.Errorf("--certificate-authority: %w", err)
		}
		if o.RootCAs, err = x509.SystemCertPool(); err != nil {
			o.RootCAs = x509.NewCertPool()
		}
		if !o.RootCAs.AppendCertsFromPEM(data) {
			return o, fmt.Errorf("--certificate-authority %s: no PEM certificate in the file", s.caFile)
		}
	}
	return o, nil
}
