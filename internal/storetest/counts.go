package storetest

import (
	"testing"

	"github.com/pact-registry/pact/server/registry"
)

func (su suite) testCountPackages(t *testing.T) {
	s := su.store(t)
	want := func(what string, packages, versions int64) {
		t.Helper()
		p, v, err := s.CountPackages(ctx())
		if err != nil {
			t.Fatalf("CountPackages %s: %v", what, err)
		}
		if p != packages || v != versions {
			t.Errorf("CountPackages %s = %d packages, %d versions; want %d, %d", what, p, v, packages, versions)
		}
	}
	want("of an empty store", 0, 0)

	alice, bob := createAccount(t, s, "alice"), createAccount(t, s, "bob")
	widget := publish(t, s, input(alice, "widget", "1.0.0", "one", at(1)))
	publish(t, s, input(alice, "widget", "1.1.0", "two", at(2)))
	publish(t, s, input(bob, "widget", "1.0.0", "bob's", at(3)))
	// The same version again stores nothing.
	if _, created, err := registry.PublishVersion(ctx(), s, input(alice, "widget", "1.1.0", "two", at(4))); err != nil || created {
		t.Fatalf("publishing 1.1.0 again: created %v, %v", created, err)
	}
	want("after three versions of two packages", 2, 3)

	// Yanked versions are still held, and so is a package whose every
	// version is yanked.
	yank(t, s, widget, "1.0.0", true, "broken", 5)
	yank(t, s, widget, "1.1.0", true, "broken", 6)
	org := createOrg(t, s, "acme", alice)
	in := input(org, "tool", "0.1.0", "org's", at(7))
	in.PublisherID = alice.ID
	publish(t, s, in)
	want("after yanks and an organisation's package", 3, 4)
}
