package web

import "testing"

func TestDescribeUserAgent(t *testing.T) {
	t.Parallel()
	cases := []struct{ ua, want string }{
		{"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "Firefox 128 on Linux"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36", "Chrome 126 on Windows"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.2592.56", "Edge 126 on Windows"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15", "Safari 17 on macOS"},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "Safari 17 on iOS"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36", "Chrome 126 on Android"},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36", "Headless Chrome 156 on Linux"},
		{"curl/8.5.0", "curl 8"},
		{"Go-http-client/1.1", "Go-http-client/1.1"},
		{"", "Unknown browser"},
		{"SomeRobotWithAVeryLongNameThatGoesOnAndOnForeverAndEver/1.0 (+https://example.com)", "SomeRobotWithAVeryLongNameThatGoesOnAndO…"},
	}
	for _, c := range cases {
		if got := describeUserAgent(c.ua); got != c.want {
			t.Errorf("describeUserAgent(%q) = %q, want %q", c.ua, got, c.want)
		}
	}
}
