// Command hookreceiver is a webhook receiver for tests (internal/hooktest):
// it listens on a loopback port, prints "LISTENING <url>", checks every
// delivery's signature with -secret and keeps those it answered 200, which
// GET /deliveries lists.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/pact-registry/pact/internal/hooktest"
)

func main() {
	secret := flag.String("secret", "", "the hook's secret")
	failFirst := flag.Int("fail-first", 0, "answer 500 to this many requests first")
	slowFirst := flag.Duration("slow-first", 0, "hold the first request this long before answering")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	h := hooktest.NewHandler(*secret, hooktest.Behaviour{FailFirst: *failFirst, SlowFirst: *slowFirst})
	fmt.Fprintf(os.Stdout, "LISTENING http://%s\n", ln.Addr())
	log.Fatal(http.Serve(ln, h))
}
