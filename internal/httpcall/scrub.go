package httpcall

import (
	"net/url"
	"sort"
	"strings"
)

// scrubMin is the shortest part of a URL Scrub hides: shorter ones
// (api, v1, hooks) are words a server says anyway, and no secret.
const scrubMin = 6

// Scrub is text, a server's answer to a request to u, with the secret
// parts of u hidden as "…": its path, each part of the path and each
// query value of scrubMin bytes or more, and a password. Servers echo the
// path they were asked for ("no such hook: /services/T0/B0/XXXX"), and a
// webhook's secret is its path, so an error made of the answer would
// show it where Redact took care to leave it out.
func Scrub(text, u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return text
	}
	var secrets []string
	add := func(s string) {
		if len(s) >= scrubMin {
			secrets = append(secrets, s, url.PathEscape(s), url.QueryEscape(s))
		}
	}
	add(p.EscapedPath())
	add(p.Path)
	add(p.RawQuery)
	for _, part := range strings.Split(p.Path, "/") {
		add(part)
	}
	for _, vs := range p.Query() {
		for _, v := range vs {
			add(v)
		}
	}
	if pw, ok := p.User.Password(); ok {
		add(pw)
	}
	// The longest first, so a path goes whole before its parts.
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, "…")
	}
	return text
}
