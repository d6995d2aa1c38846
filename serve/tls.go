package serve

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/bundlectl/bundlectl/internal/certs"
)

// credentials are made fresh for each run and never written anywhere but
// the run's kubeconfig: a CA whose key exists only in memory, a serving
// certificate it signs, and a bearer token. A bundle holds a customer's
// cluster state; another local user must not be able to read it through
// the server.
type credentials struct {
	caPEM []byte
	cert  tls.Certificate
	token string
}

func newCredentials(hosts []string) (*credentials, error) {
	tokenBytes := make([]byte, 32)
	if _, err := rand.Read(tokenBytes); err != nil {
		return nil, fmt.Errorf("making the bearer token: %w", err)
	}
	ca, err := certs.NewCA("bundlectl serve CA", 365*24*time.Hour)
	if err != nil {
		return nil, err
	}
	der, key, err := ca.Serving("bundlectl serve", hosts)
	if err != nil {
		return nil, err
	}
	return &credentials{
		caPEM: ca.PEM,
		cert:  tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		token: hex.EncodeToString(tokenBytes),
	}, nil
}
