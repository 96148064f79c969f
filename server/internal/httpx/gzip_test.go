package httpx

import (
	"net/http"
	"testing"
)

// Which Accept-Encoding headers take gzip (RFC 9110, 12.5.3).
func TestAcceptsGzip(t *testing.T) {
	cases := []struct {
		name   string
		header []string
		want   bool
	}{
		{"none", nil, false},
		{"gzip", []string{"gzip"}, true},
		{"gzip among others", []string{"br, gzip, deflate"}, true},
		{"gzip with a weight", []string{"br;q=1.0, gzip;q=0.5"}, true},
		{"upper case", []string{"GZIP"}, true},
		{"x-gzip", []string{"x-gzip"}, true},
		{"anything", []string{"*"}, true},
		{"in a second header line", []string{"br", "gzip"}, true},
		{"identity only", []string{"identity"}, false},
		{"others only", []string{"br, deflate"}, false},
		{"gzip refused", []string{"gzip;q=0"}, false},
		{"gzip refused, with spaces", []string{"gzip ; q=0.000"}, false},
		{"gzip refused, anything else taken", []string{"gzip;q=0, *"}, false},
		{"anything taken, gzip refused", []string{"*, gzip;q=0"}, false},
		{"anything refused, gzip taken", []string{"*;q=0, gzip"}, true},
		{"anything refused", []string{"*;q=0"}, false},
		{"a bad weight does not refuse", []string{"gzip;q=x"}, true},
		{"a gzip-like name", []string{"gzipper"}, false},
	}
	for _, c := range cases {
		r := &http.Request{Header: http.Header{}}
		if c.header != nil {
			r.Header["Accept-Encoding"] = c.header
		}
		if got := AcceptsGzip(r); got != c.want {
			t.Errorf("%s (%q): AcceptsGzip = %v, want %v", c.name, c.header, got, c.want)
		}
	}
}
