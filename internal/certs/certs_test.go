package certs

import (
	"crypto/x509"
	"net"
	"testing"
	"time"
)

// A serving certificate verifies against its CA for localhost, the
// loopback addresses and each host asked for, and for nothing else.
func TestServingVerifiesForItsHosts(t *testing.T) {
	ca, err := NewCA("test CA", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	der, _, err := ca.Serving("test", []string{"10.1.2.3", "example.test", ""})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca.PEM) {
		t.Fatal("the CA's PEM does not parse")
	}
	for _, host := range []string{"localhost", "127.0.0.1", "::1", "10.1.2.3", "example.test"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err != nil {
			t.Errorf("%s: %v", host, err)
		}
	}
	for _, host := range []string{"other.test", "10.1.2.4"} {
		if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: host}); err == nil {
			t.Errorf("%s: verified, want refused", host)
		}
	}
	if got := len(cert.IPAddresses); got != 3 {
		t.Errorf("IP addresses %v, want the two loopbacks and 10.1.2.3", cert.IPAddresses)
	}
	if !cert.IPAddresses[2].Equal(net.ParseIP("10.1.2.3")) {
		t.Errorf("IP addresses %v", cert.IPAddresses)
	}
}

// Another CA's certificate does not verify against this CA.
func TestServingOfAnotherCARefused(t *testing.T) {
	a, err := NewCA("a", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewCA("b", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	der, _, err := b.Serving("b", nil)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(a.PEM)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, DNSName: "localhost"}); err == nil {
		t.Error("a certificate of CA b verified against CA a")
	}
}
