package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"
)

// newHealthcheckCmd is the health check of a container image that holds
// pactd alone, with no shell or curl to run one (docs/operations.md,
// Containers and systemd).
func newHealthcheckCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 when the pactd serving on --addr answers /healthz",
		Long: `GET /healthz of the pactd serving on --addr and exit 0 when it answers 200,
1 otherwise, saying why on stderr. --addr is read as serve reads it (the
flag, PACTD_ADDR or the config file), so the check finds the server it sits
beside; an address without a host (:8080, 0.0.0.0:8080, [::]:8080) is asked
on the loopback address. For images without a shell:
HEALTHCHECK CMD ["/pactd", "healthcheck"].`,
		Example: `  pactd healthcheck --addr :8080`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := applySettings(cmd, os.Environ()); err != nil {
				return err
			}
			addr, _ := cmd.Flags().GetString("addr")
			url, err := healthURL(addr)
			if err != nil {
				return usageError{err}
			}
			client := &http.Client{Timeout: timeout}
			resp, err := client.Get(url)
			if err != nil {
				return fmt.Errorf("unhealthy: %w", err)
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("unhealthy: %s answered %s", url, resp.Status)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "healthy: %s answered %s\n", url, resp.Status)
			return nil
		},
	}
	cmd.Flags().String("addr", "localhost:8080", "address pactd serve listens on")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait for the answer")
	return cmd
}

// healthURL is the /healthz URL of a server listening on addr.
func healthURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", fmt.Errorf("--addr %q is not an address such as :8080 or 127.0.0.1:8080", addr)
	}
	switch ip := net.ParseIP(host); {
	case host == "":
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified() && ip.To4() != nil:
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/healthz", nil
}
