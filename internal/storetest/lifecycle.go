package storetest

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/pact-registry/pact/pkg/translog"
	"github.com/pact-registry/pact/server/registry"
)

// yank calls SetYanked and fails the test on an error.
func yank(t *testing.T, s registry.Store, p *registry.Package, version string, yanked bool, reason string, minute int) (*registry.Package, *registry.Version) {
	t.Helper()
	pkg, v, err := registry.SetYanked(ctx(), s, p, version, yanked, reason, at(minute))
	if err != nil {
		t.Fatalf("SetYanked(%s, %v): %v", version, yanked, err)
	}
	return pkg, v
}

// yankState is what a version says about its yank.
func yankState(t *testing.T, s registry.Store, p *registry.Package) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, v := range listVersions(t, s, p.ID) {
		if v.Yanked() {
			out[v.Version] = "yanked: " + v.YankReason
		} else if v.YankReason != "" {
			t.Errorf("version %s is not yanked but has the reason %q", v.Version, v.YankReason)
		}
	}
	return out
}

func latestDocument(t *testing.T, s registry.Store, p *registry.Package) string {
	t.Helper()
	v, err := s.VersionDocument(ctx(), p.OwnerSlug, p.PackSlug, "")
	if err != nil {
		t.Fatalf("VersionDocument(latest): %v", err)
	}
	return v.Version
}

func (su suite) testLifecycle(t *testing.T) {
	t.Run("yanking the latest makes the next highest version latest", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		ins := map[string]registry.PublishInput{}
		var p *registry.Package
		for i, v := range []string{"1.0.0", "2.0.0", "1.5.0", "3.0.0-rc.1"} {
			ins[v] = input(alice, "foo", v, "body "+v, at(i))
			ins[v] = withDescription(ins[v], "release "+v)
			p = publish(t, s, ins[v])
		}
		wantPackage(t, "before", p, ins["2.0.0"])
		gen, genOK := s.Generation()

		pkg, v := yank(t, s, p, "2.0.0", true, "broken parser", 10)
		wantPackage(t, "after yanking 2.0.0", pkg, ins["1.5.0"])
		if !v.Yanked() || v.YankReason != "broken parser" || v.Version != "2.0.0" {
			t.Errorf("SetYanked returned version %+v, want 2.0.0 yanked for \"broken parser\"", v)
		}
		wantOptionalTime(t, "YankedAt", v.YankedAt, ptr(at(10)))
		if again, ok := s.Generation(); genOK && (!ok || again == gen) {
			t.Errorf("Generation stayed %d after a yank: cached list pages would still offer 2.0.0", gen)
		}
		got, err := s.PackageBySlug(ctx(), "alice", "foo")
		if err != nil {
			t.Fatal(err)
		}
		samePackage(t, "PackageBySlug after the yank", got, pkg)
		if got := latestDocument(t, s, p); got != "1.5.0" {
			t.Errorf("the latest document is %s, want 1.5.0", got)
		}
		// The exact version is still served, marked as yanked.
		doc, err := s.VersionDocument(ctx(), "alice", "foo", "2.0.0")
		if err != nil || string(doc.Content) != string(ins["2.0.0"].Content) || !doc.Yanked() || doc.YankReason != "broken parser" {
			t.Errorf("VersionDocument(2.0.0) after the yank = %+v, %v; want its content, yanked", doc, err)
		}
		if got, want := yankState(t, s, p), map[string]string{"2.0.0": "yanked: broken parser"}; !maps.Equal(got, want) {
			t.Errorf("versions %v, want %v", got, want)
		}
		list, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10})
		if err != nil || len(list) != 1 || list[0].Version != "1.5.0" {
			t.Errorf("ListPackages after the yank = %+v, %v; want foo at 1.5.0", list, err)
		}

		// A publish compares with the latest not yanked.
		ins["1.6.0"] = input(alice, "foo", "1.6.0", "body 1.6.0", at(20))
		pkg = publish(t, s, ins["1.6.0"])
		wantPackage(t, "publishing 1.6.0 while 2.0.0 is yanked", pkg, ins["1.6.0"])

		pkg, v = yank(t, s, p, "2.0.0", false, "", 30)
		wantPackage(t, "after un-yanking 2.0.0", pkg, ins["2.0.0"])
		if v.Yanked() || v.YankReason != "" {
			t.Errorf("un-yanked version %+v still carries its yank", v)
		}
		if got := latestDocument(t, s, p); got != "2.0.0" {
			t.Errorf("the latest document after un-yanking is %s, want 2.0.0", got)
		}
	})

	t.Run("yank and un-yank are idempotent", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		one, two := input(alice, "foo", "1.0.0", "a", at(0)), input(alice, "foo", "2.0.0", "b", at(1))
		publish(t, s, one)
		p := publish(t, s, two)
		yank(t, s, p, "2.0.0", true, "first reason", 5)
		pkg, v := yank(t, s, p, "2.0.0", true, "second reason", 9)
		wantPackage(t, "yanked twice", pkg, one)
		wantOptionalTime(t, "YankedAt after yanking twice", v.YankedAt, ptr(at(5)))
		if v.YankReason != "second reason" {
			t.Errorf("reason after yanking again = %q, want the new one", v.YankReason)
		}
		pkg, v = yank(t, s, p, "1.0.0", false, "", 10)
		wantPackage(t, "un-yanking a version not yanked", pkg, one)
		if v.Yanked() {
			t.Errorf("1.0.0 is yanked after un-yanking it")
		}
		yank(t, s, p, "2.0.0", false, "", 11)
		pkg, _ = yank(t, s, p, "2.0.0", false, "", 12)
		wantPackage(t, "un-yanked twice", pkg, two)
		yank(t, s, p, "2.0.0", true, "again", 13)
		yank(t, s, p, "2.0.0", true, "again", 14)

		// The log holds each change once: the first yank, the new reason,
		// the un-yank and the last yank; the repeats changed nothing.
		entries := eventEntries(t, s)
		want := []*translog.Entry{
			registry.YankLogEntry(true, "alice", "foo", "2.0.0", "first reason", at(5)),
			registry.YankLogEntry(true, "alice", "foo", "2.0.0", "second reason", at(9)),
			registry.YankLogEntry(false, "alice", "foo", "2.0.0", "", at(11)),
			registry.YankLogEntry(true, "alice", "foo", "2.0.0", "again", at(13)),
		}
		if len(entries) != 2+len(want) {
			t.Fatalf("%d log entries, want the 2 publishes and %d yank events", len(entries), len(want))
		}
		for i, w := range want {
			if got := entries[2+i]; !bytes.Equal(got, w.Marshal()) {
				t.Errorf("log entry %d:\n%s\nwant\n%s", 2+i, got, w.Marshal())
			}
		}
	})

	t.Run("a package whose every version is yanked has no latest and is not listed", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		other := publish(t, s, input(alice, "other", "1.0.0", "x", at(0)))
		one := input(alice, "foo", "1.0.0", "a", at(1))
		one.Description = "first"
		p := publish(t, s, one)
		pkg, _ := yank(t, s, p, "1.0.0", true, "", 5)
		if pkg.Version != "" || pkg.SHA256 != "" || pkg.LatestVersionID != 0 || pkg.Name != one.Name || pkg.Description != "first" {
			t.Errorf("package with every version yanked = %+v; want no version, sha256 or latest id, and its name and description kept", pkg)
		}
		list, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10})
		if err != nil || !slices.Equal(names(list), []string{"alice/other"}) {
			t.Errorf("ListPackages = %v, %v; want only alice/other", names(list), err)
		}
		for _, f := range []registry.PackageFilter{{Limit: 10, Owner: "alice"}, {Limit: 10, Scheme: "skill"}, {Limit: 10, Query: "foo"}, {Limit: 10, Before: other.LatestVersionID + 10}} {
			if list, err := s.ListPackages(ctx(), f); err != nil || slices.Contains(names(list), "alice/foo") {
				t.Errorf("ListPackages(%+v) = %v, %v; want alice/foo left out", f, names(list), err)
			}
		}
		_, err = s.VersionDocument(ctx(), "alice", "foo", "")
		wantCode(t, "VersionDocument(latest) with every version yanked", err, registry.NotFound)
		wantMessage(t, "VersionDocument(latest) with every version yanked", err, "every version of alice/foo is yanked")
		if doc, err := s.VersionDocument(ctx(), "alice", "foo", "1.0.0"); err != nil || !doc.Yanked() {
			t.Errorf("VersionDocument(1.0.0) = %+v, %v; want the yanked version", doc, err)
		}
		if got, err := s.PackageBySlug(ctx(), "alice", "foo"); err != nil || got.Version != "" {
			t.Errorf("PackageBySlug = %+v, %v; want the package without a latest version", got, err)
		}

		// Publishing again gives it a latest version and lists it.
		two := input(alice, "foo", "0.9.0", "b", at(10))
		pkg = publish(t, s, two)
		wantPackage(t, "publishing after every version was yanked", pkg, two)
		list, err = s.ListPackages(ctx(), registry.PackageFilter{Limit: 10})
		if err != nil || !slices.Equal(names(list), []string{"alice/foo", "alice/other"}) {
			t.Errorf("ListPackages = %v, %v; want alice/foo back first", names(list), err)
		}
		// Re-publishing the yanked version's exact content changes nothing.
		again, created, err := registry.PublishVersion(ctx(), s, one)
		if err != nil || created || again.Version != "0.9.0" {
			t.Errorf("publishing yanked 1.0.0 again = %+v, created %v, %v; want no change", again, created, err)
		}
		if got := yankState(t, s, p); got["1.0.0"] == "" {
			t.Errorf("1.0.0 is no longer yanked after publishing it again: %v", got)
		}
	})

	t.Run("unknown versions and packages are not found", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		p := publish(t, s, input(alice, "foo", "1.0.0", "a", at(0)))
		for _, yanked := range []bool{true, false} {
			_, _, err := registry.SetYanked(ctx(), s, p, "9.9.9", yanked, "", at(1))
			wantCode(t, "SetYanked of an unknown version", err, registry.NotFound)
			wantMessage(t, "SetYanked of an unknown version", err, "no version 9.9.9 of alice/foo")
			_, _, err = registry.SetYanked(ctx(), s, &registry.Package{ID: p.ID + 100, OwnerSlug: "alice", PackSlug: "foo"}, "1.0.0", yanked, "", at(1))
			wantCode(t, "SetYanked of an unknown package", err, registry.NotFound)
		}
		_, err := registry.SetDeprecated(ctx(), s, &registry.Package{ID: p.ID + 100, OwnerSlug: "alice", PackSlug: "foo"}, "gone", at(1))
		wantCode(t, "SetDeprecated of an unknown package", err, registry.NotFound)
		if got := yankState(t, s, p); len(got) != 0 {
			t.Errorf("versions %v after refused yanks, want none yanked", got)
		}
	})

	t.Run("concurrent yanks and publishes keep the latest right", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		p := publish(t, s, input(alice, "foo", "0.0.1", "base", t0))
		publish(t, s, input(alice, "foo", "0.0.2", "base", t0))
		var wg sync.WaitGroup
		errs := make([]error, 16)
		for i := range errs {
			wg.Go(func() {
				if i%2 == 0 {
					_, _, errs[i] = registry.PublishVersion(ctx(), s, input(alice, "foo", fmt.Sprintf("1.%d.0", i), "v", at(1)))
					return
				}
				// Yank the version the previous goroutine publishes, if it
				// is there yet, while others publish higher ones.
				_, _, err := registry.SetYanked(ctx(), s, p, fmt.Sprintf("1.%d.0", i-1), true, "", at(1))
				if !registry.IsCode(err, registry.NotFound) {
					errs[i] = err
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		}
		pkg, err := s.PackageBySlug(ctx(), "alice", "foo")
		if err != nil {
			t.Fatal(err)
		}
		var left []registry.Version
		versions := listVersions(t, s, pkg.ID)
		for i := len(versions) - 1; i >= 0; i-- { // publish order
			if !versions[i].Yanked() {
				left = append(left, versions[i])
			}
		}
		names := make([]string, len(left))
		for i, v := range left {
			names[i] = v.Version
		}
		want := left[registry.LatestOf(names)]
		if pkg.Version != want.Version || pkg.LatestVersionID != want.ID || pkg.SHA256 != want.SHA256 {
			t.Errorf("latest %s (id %d) after concurrent yanks and publishes, want %s (id %d) of %v", pkg.Version, pkg.LatestVersionID, want.Version, want.ID, names)
		}
	})

	t.Run("deprecating sets and clears the message", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		in := input(alice, "foo", "1.0.0", "a", at(0))
		p := publish(t, s, in)
		if p.Deprecated != "" {
			t.Errorf("a new package is deprecated: %q", p.Deprecated)
		}
		gen, genOK := s.Generation()
		pkg, err := registry.SetDeprecated(ctx(), s, p, "use alice/bar", at(2))
		if err != nil || pkg.Deprecated != "use alice/bar" {
			t.Fatalf("SetDeprecated = %+v, %v", pkg, err)
		}
		wantPackage(t, "deprecated", pkg, in)
		if again, ok := s.Generation(); genOK && (!ok || again == gen) {
			t.Errorf("Generation stayed %d after deprecating", gen)
		}
		list, err := s.ListPackages(ctx(), registry.PackageFilter{Limit: 10})
		if err != nil || len(list) != 1 || list[0].Deprecated != "use alice/bar" {
			t.Errorf("ListPackages = %+v, %v; want foo deprecated", list, err)
		}
		if got, err := s.PackageBySlug(ctx(), "alice", "foo"); err != nil || got.Deprecated != "use alice/bar" {
			t.Errorf("PackageBySlug = %+v, %v; want deprecated", got, err)
		}
		// A publish keeps the deprecation: it is the package's, not a version's.
		pkg = publish(t, s, input(alice, "foo", "1.1.0", "b", at(1)))
		if pkg.Deprecated != "use alice/bar" {
			t.Errorf("after a publish the package's deprecation is %q", pkg.Deprecated)
		}
		pkg, err = registry.SetDeprecated(ctx(), s, p, "", at(3))
		if err != nil || pkg.Deprecated != "" {
			t.Errorf("SetDeprecated(\"\") = %+v, %v; want the deprecation undone", pkg, err)
		}
	})
}

func (su suite) testTrustedPublishingOnly(t *testing.T) {
	t.Run("the setting reads back everywhere, is kept by publishes, and only CI publishes meanwhile", func(t *testing.T) {
		s := su.store(t)
		alice := createAccount(t, s, "alice")
		key := createKey(t, s, alice, "laptop", at(0))
		p := publish(t, s, input(alice, "foo", "1.0.0", "a", at(1)))
		if p.TrustedPublishingOnly {
			t.Fatal("a new package is trusted publishing only")
		}
		gen, genOK := s.Generation()
		pkg, err := registry.SetTrustedPublishingOnly(ctx(), s, p, true, "alice", at(2))
		if err != nil || !pkg.TrustedPublishingOnly || pkg.Version != "1.0.0" {
			t.Fatalf("SetTrustedPublishingOnly(true) = %+v, %v", pkg, err)
		}
		if again, ok := s.Generation(); genOK && (!ok || again == gen) {
			t.Errorf("Generation stayed %d after the setting changed", gen)
		}
		wantLogTail(t, s, registry.TrustedPublishingOnlyLogEntry("alice", "foo", true, "alice", at(2)))
		if got, err := s.PackageBySlug(ctx(), "alice", "foo"); err != nil || !got.TrustedPublishingOnly {
			t.Errorf("PackageBySlug = %+v, %v; want trusted publishing only", got, err)
		}
		for _, f := range []registry.PackageFilter{{Limit: 10}, {Limit: 10, Query: "foo"}} {
			if list, err := s.ListPackages(ctx(), f); err != nil || len(list) != 1 || !list[0].TrustedPublishingOnly {
				t.Errorf("ListPackages(%+v) = %+v, %v; want foo trusted publishing only", f, list, err)
			}
		}
		if list, err := s.TrustedPublishingOnlyPackages(ctx(), 0, 10); err != nil || len(list) != 1 || list[0].ID != p.ID || list[0].OwnerSlug != "alice" {
			t.Errorf("TrustedPublishingOnlyPackages = %+v, %v; want foo", list, err)
		}
		entries := len(logEntries(t, s))

		// A token or a signed publish is refused by the domain's rule,
		// and spends nothing; a publish from CI is not.
		_, _, err = registry.PublishVersion(ctx(), s, input(alice, "foo", "2.0.0", "b", at(3)))
		wantCode(t, "a token publish", err, registry.Forbidden)
		wantMessage(t, "a token publish", err, "trusted_publishing_only")
		_, _, err = registry.PublishVersion(ctx(), s, signed(input(alice, "foo", "2.0.0", "b", at(3)), key, "nonce-0123456789abcdef"))
		wantCode(t, "a signed publish", err, registry.Forbidden)
		if got := len(logEntries(t, s)); got != entries {
			t.Errorf("refused publishes grew the log from %d to %d entries", entries, got)
		}
		ci := input(alice, "foo", "2.0.0", "b", at(4))
		ci.CI = &registry.CIIdentity{Issuer: "https://token.actions.githubusercontent.com", Repository: "alice/foo"}
		if pkg := publish(t, s, ci); pkg.Version != "2.0.0" || !pkg.TrustedPublishingOnly {
			t.Errorf("after a CI publish: %+v; want 2.0.0, still trusted publishing only", pkg)
		}

		// Setting it again changes and logs nothing; turning it off logs.
		entries = len(logEntries(t, s))
		if _, err := registry.SetTrustedPublishingOnly(ctx(), s, p, true, "alice", at(5)); err != nil {
			t.Fatal(err)
		}
		if got := len(logEntries(t, s)); got != entries {
			t.Errorf("setting it again appended %d entries", got-entries)
		}
		pkg, err = registry.SetTrustedPublishingOnly(ctx(), s, p, false, "alice", at(6))
		if err != nil || pkg.TrustedPublishingOnly {
			t.Fatalf("SetTrustedPublishingOnly(false) = %+v, %v", pkg, err)
		}
		wantLogTail(t, s, registry.TrustedPublishingOnlyLogEntry("alice", "foo", false, "alice", at(6)))
		if list, err := s.TrustedPublishingOnlyPackages(ctx(), 0, 10); err != nil || len(list) != 0 {
			t.Errorf("TrustedPublishingOnlyPackages after turning it off = %+v, %v", list, err)
		}
		publish(t, s, signed(input(alice, "foo", "3.0.0", "c", at(7)), key, "nonce-0123456789abcdef"))

		_, err = registry.SetTrustedPublishingOnly(ctx(), s, &registry.Package{ID: p.ID + 100}, true, "alice", at(8))
		wantCode(t, "SetTrustedPublishingOnly of an unknown package", err, registry.NotFound)
	})
}

func withDescription(in registry.PublishInput, d string) registry.PublishInput {
	in.Description = d
	return in
}
