package localapiserver

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"time"

	"github.com/bundlectl/bundlectl/internal/certs"
)

// pki is what the work dir holds for authentication: a CA, the serving
// certificate it signed, the service-account key pair and the admin token.
type pki struct {
	caCertPEM   []byte
	caCert      string // file paths in the work dir
	servingCert string
	servingKey  string
	saKey       string
	saPub       string
	tokenFile   string
	token       string
}

// writePKI creates the files in dir. The service-account key is ECDSA
// P-256 too: kube-apiserver signs its tokens with ES256.
func writePKI(dir string) (*pki, error) {
	p := &pki{
		caCert:      filepath.Join(dir, "ca.crt"),
		servingCert: filepath.Join(dir, "apiserver.crt"),
		servingKey:  filepath.Join(dir, "apiserver.key"),
		saKey:       filepath.Join(dir, "sa.key"),
		saPub:       filepath.Join(dir, "sa.pub"),
		tokenFile:   filepath.Join(dir, "tokens.csv"),
	}

	ca, err := certs.NewCA("bundlectl-local-ca", 7*24*time.Hour)
	if err != nil {
		return nil, err
	}
	p.caCertPEM = ca.PEM
	srvDER, srvKey, err := ca.Serving("kube-apiserver", []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"})
	if err != nil {
		return nil, err
	}

	saKey, err := certs.NewKey()
	if err != nil {
		return nil, err
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, err
	}

	tok := make([]byte, 24)
	if _, err := rand.Read(tok); err != nil {
		return nil, err
	}
	p.token = hex.EncodeToString(tok)

	files := []struct {
		path string
		data []byte
	}{
		{p.caCert, p.caCertPEM},
		{p.servingCert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srvDER})},
		{p.servingKey, ecKeyPEM(srvKey)},
		{p.saKey, ecKeyPEM(saKey)},
		{p.saPub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub})},
		// token,user,uid,"group,..." as --token-auth-file reads it.
		{p.tokenFile, []byte(p.token + `,bundlectl-admin,bundlectl-admin,"system:masters"` + "\n")},
	}
	for _, f := range files {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func ecKeyPEM(k *ecdsa.PrivateKey) []byte {
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		panic(err) // only fails for curves Go does not know
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}
