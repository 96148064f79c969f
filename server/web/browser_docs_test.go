package web_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pact-registry/pact/internal/servertest"
	"github.com/pact-registry/pact/server/openapi"
)

// brokenNames lists the names in /docs's tables (parameters, response
// headers, schema fields, status codes) that the browser shows on more
// than one line: an inline element broken across lines has more than one
// client rectangle.
const brokenNames = `Array.from(document.querySelectorAll(
	".operation tbody td:first-child > code, .schema tbody td:first-child > code, .rules code, code.status-code"
)).filter(c => c.getClientRects().length > 1).map(c => c.textContent)`

// On /docs every parameter and field name stays on one line, on a phone
// and on a desktop, and an operation that answers GET and HEAD is listed
// once, as GET, saying that it answers HEAD too; links to the HEAD
// operation's anchor still land on it.
func TestBrowserAPIReferenceNamesAndHead(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t, 60*time.Second)
	env := servertest.Start(t, t.TempDir()+"/pact.db", servertest.Options{})
	b := tab{t: t, ctx: ctx}

	for _, size := range []struct {
		name          string
		width, height int64
		phone         bool
	}{{"phone", 390, 844, true}, {"desktop", 1280, 900, false}} {
		if size.phone {
			b.do("emulating a phone", chromedp.EmulateViewport(size.width, size.height, chromedp.EmulateScale(2), chromedp.EmulateMobile, chromedp.EmulateTouch))
		} else {
			b.do("sizing the window", chromedp.EmulateViewport(size.width, size.height))
		}
		b.open(env.URL + "/docs")
		if n := evaluate[int](b, `document.querySelectorAll(".operation tbody td:first-child > code").length`); n < 20 {
			t.Fatalf("%s: only %d names in the operations' tables: the selector misses them", size.name, n)
		}
		if broken := evaluate[[]string](b, brokenNames); len(broken) > 0 {
			t.Errorf("%s (%d px): these names break across lines: %q", size.name, size.width, broken)
		}
		if wide := evaluate[bool](b, `document.documentElement.scrollWidth > document.documentElement.clientWidth`); wide {
			t.Errorf("%s: /docs scrolls sideways; sticking out: %q", size.name, evaluate[[]string](b, overflowing))
		}
	}

	type operation struct {
		OperationID string `json:"operationId"`
	}
	var doc struct {
		Paths map[string]struct {
			Get  *operation `json:"get"`
			Head *operation `json:"head"`
		}
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	if n := evaluate[int](b, `document.querySelectorAll(".toc .method-head, .operation h3 > .method-head").length`); n != 0 {
		t.Errorf("%d operations are listed as HEAD of their own", n)
	}
	folded := 0
	for path, item := range doc.Paths {
		get, head := item.Get, item.Head
		if head == nil {
			continue
		}
		if get == nil {
			t.Errorf("%s answers HEAD but not GET", path)
			continue
		}
		folded++
		got := evaluate[map[string]any](b, `(() => {
			const op = document.getElementById("op-`+get.OperationID+`");
			const head = document.getElementById("op-`+head.OperationID+`");
			if (!op) return {missing: true};
			return {
				heading: op.querySelector("h3").textContent.replace(/\s+/g, " ").trim(),
				headInside: !!head && op.contains(head),
				tocEntries: document.querySelectorAll(".toc a[href='#op-`+get.OperationID+`'], .toc a[href='#op-`+head.OperationID+`']").length,
			};
		})()`)
		if got["missing"] == true {
			t.Errorf("GET %s (%s) is not on the page", path, get.OperationID)
			continue
		}
		heading, _ := got["heading"].(string)
		if !strings.HasPrefix(heading, "GET") || strings.Count(heading, "HEAD") != 1 || !strings.HasSuffix(heading, path) {
			t.Errorf("GET %s is headed %q, want GET, HEAD once and the path", path, heading)
		}
		if got["headInside"] != true {
			t.Errorf("#op-%s is not inside GET %s's entry: links to the HEAD operation lead nowhere", head.OperationID, path)
		}
		if n, _ := got["tocEntries"].(float64); n != 1 {
			t.Errorf("%s is in the contents %v times, want once", path, n)
		}
	}
	if folded < 10 {
		t.Fatalf("only %d operations answer GET and HEAD: openapi.json was not read", folded)
	}
}
