package demo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/models"
)

// The demo's links as a shop's marketing team would make them (issue 33
// item 7): keys a person chose (/spring-sale → shop.example/collections/spring),
// a title each, and UTM tags that match the channel the key names.

// shopURL is the demo shop's site.
const shopURL = "https://shop.example"

var (
	collections = []string{"spring", "summer", "autumn", "winter", "new-arrivals", "bestsellers", "shoes", "jackets", "bags",
		"accessories", "denim", "knitwear", "sneakers", "outdoor", "running", "kids", "home", "rain-gear", "basics", "gifts"}
	products = []string{"trail-runner", "rain-shell", "wool-beanie", "canvas-tote", "city-backpack", "linen-shirt", "down-vest",
		"everyday-tee", "chelsea-boot", "merino-socks", "puffer-jacket", "leather-belt", "sun-hat", "yoga-pants", "travel-duffel"}
	months = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"}
	// pages are the shop's own pages a team links to from bios and emails.
	pages = []string{"gift-cards", "size-guide", "returns", "shipping", "stores", "rewards", "student-discount", "careers", "about", "blog"}
)

// linkPlan is one demo link before it is written: key, destination, title.
type linkPlan struct {
	key, url, title string
}

// words turns a slug into a title's words ("new-arrivals" → "New arrivals").
func words(slug string) string {
	s := strings.ReplaceAll(slug, "-", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

// utm appends UTM parameters.
func utm(u, source, medium, campaign string) string {
	return u + "?utm_source=" + source + "&utm_medium=" + medium + "&utm_campaign=" + campaign
}

// catalog is every link a shop's team might make, in a seeded order: the
// first n are the demo's (more than the catalogue holds get a number:
// spring-sale-2).
func catalog(rng *rand.Rand) []linkPlan {
	var out []linkPlan
	for _, c := range collections {
		out = append(out,
			linkPlan{c + "-sale", utm(shopURL+"/collections/"+c, "newsletter", "email", c+"-sale"), words(c) + " sale"},
			linkPlan{c, shopURL + "/collections/" + c, words(c) + " collection"},
			linkPlan{"ig-" + c, utm(shopURL+"/collections/"+c, "instagram", "social", c) + "&utm_content=story", "Instagram: " + strings.ToLower(words(c))},
			linkPlan{"ad-" + c, utm(shopURL+"/collections/"+c, "google", "cpc", c+"-sale") + "&utm_term=" + c + "&utm_content=search-ad", "Search ad: " + strings.ToLower(words(c))},
		)
	}
	for _, p := range products {
		out = append(out,
			linkPlan{p, shopURL + "/products/" + p, words(p)},
			linkPlan{"launch-" + p, utm(shopURL+"/products/"+p, "twitter", "social", "launch"), words(p) + " launch"},
			linkPlan{p + "-review", utm(shopURL+"/products/"+p, "youtube", "video", "reviews"), words(p) + " review video"},
		)
	}
	for _, m := range months {
		out = append(out, linkPlan{"newsletter-" + m, utm(shopURL+"/blog/"+m+"-picks", "newsletter", "email", m), words(m) + " newsletter"})
	}
	for _, pg := range pages {
		out = append(out, linkPlan{pg, shopURL + "/pages/" + pg, words(pg)})
	}
	for i, ep := range []string{"ep-12", "ep-13", "ep-14", "ep-15"} {
		out = append(out, linkPlan{"podcast-" + ep, utm(shopURL+"/collections/"+collections[i], "podcast", "audio", "podcast"), "Podcast " + strings.ToUpper(ep[:2]) + ep[2:] + " offer"})
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// planLinks is the n links of this run: the catalogue's first n (numbered
// past its end), each partner link keyed by its partner's name instead, and
// every key made free on domain (a second run, or another workspace on the
// default short domain, has taken some: -2, -3…). suffix, when set, ends
// every key (the tests' reproducible keys).
func (g *gen) planLinks(ctx context.Context, domain, suffix string) ([]linkPlan, error) {
	cat := catalog(g.rng)
	plans := make([]linkPlan, g.o.Links)
	perPartner := map[int]int{}
	for i := range plans {
		p := cat[i%len(cat)]
		if round := i / len(cat); round > 0 {
			p.key += "-" + strconv.Itoa(round+1)
		}
		if len(g.partnerNames) > 0 && i%10 == 2 { // every tenth link is a partner link (makeLinks)
			n := (i / 10) % len(g.partnerNames)
			c := collections[perPartner[n]%len(collections)]
			p = linkPlan{conversions.Slugify(g.partnerNames[n]), shopURL + "/collections/" + c, g.partnerNames[n] + "'s " + strings.ToLower(words(c)) + " link"}
			if perPartner[n] > 0 {
				p.key += "-" + c
			}
			perPartner[n]++
		}
		if suffix != "" {
			p.key += "-" + suffix
		}
		plans[i] = p
	}
	return plans, g.freeKeys(ctx, domain, plans)
}

// freeKeys renames the plans whose key is taken on domain (by links already
// there or by an earlier plan) with the first free -2, -3… suffix.
func (g *gen) freeKeys(ctx context.Context, domain string, plans []linkPlan) error {
	used := map[string]bool{}
	for start := 0; start < len(plans); start += 500 {
		var keys []string
		for _, p := range plans[start:min(start+500, len(plans))] {
			keys = append(keys, strings.ToLower(p.key))
		}
		var taken []string
		if err := g.db.WithContext(ctx).Model(&models.Link{}).Where("domain = ? AND lower(key) IN ?", domain, keys).Pluck("lower(key)", &taken).Error; err != nil {
			return fmt.Errorf("demo: taken keys: %w", err)
		}
		for _, k := range taken {
			used[k] = true
		}
	}
	for i := range plans {
		base := plans[i].key
		for n := 2; used[strings.ToLower(plans[i].key)]; n++ {
			plans[i].key = base + "-" + strconv.Itoa(n)
			if !used[strings.ToLower(plans[i].key)] {
				var c int64
				if err := g.db.WithContext(ctx).Model(&models.Link{}).Where("domain = ? AND lower(key) = ?", domain, strings.ToLower(plans[i].key)).Count(&c).Error; err != nil {
					return fmt.Errorf("demo: taken keys: %w", err)
				}
				if c > 0 {
					used[strings.ToLower(plans[i].key)] = true
				}
			}
		}
		used[strings.ToLower(plans[i].key)] = true
	}
	return nil
}
