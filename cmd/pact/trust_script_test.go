package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/pact-registry/pact/internal/oidctest"
	"github.com/pact-registry/pact/internal/pactdtest"
	"github.com/pact-registry/pact/internal/sshtest"
)

// TestTrustScripts runs testdata/trust/*.txtar as TestScripts does, with
// a real OpenID provider (internal/oidctest) at $ISSUER that pactd allows
// (--oidc-issuer), and $ACTIONS_REQUEST_URL and $ACTIONS_REQUEST_TOKEN:
// its GitHub Actions ID token endpoint, whose claims a script sets with
// curl -d '{...}' $ISSUER/actions/claims. Scripts set
// ACTIONS_ID_TOKEN_REQUEST_URL themselves, where they play a CI job.
func TestTrustScripts(t *testing.T) {
	t.Parallel()
	bin := buildPactd(t)
	sshtest.Require(t, "ssh-agent", "ssh-add", "ssh-keygen", "curl")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/trust",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			idp, err := oidctest.Run()
			if err != nil {
				return err
			}
			env.Defer(idp.Stop)
			srv, err := pactdtest.Start(bin, env.WorkDir, "--oidc-issuer", idp.Issuer)
			if err != nil {
				return err
			}
			env.Defer(func() {
				if err := srv.Stop(); err != nil {
					env.T().Log(err)
				}
			})
			env.Setenv("ISSUER", idp.Issuer)
			env.Setenv("ACTIONS_REQUEST_URL", idp.ActionsTokenURL())
			env.Setenv("ACTIONS_REQUEST_TOKEN", idp.RequestToken)
			return setupScriptOn(env, srv)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"json":     cmdJSON,
			"jsonenv":  cmdJSONEnv,
			"exitcode": cmdExitCode,
		},
	})
}
