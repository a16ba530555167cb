package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/app"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/models"
)

const programUsage = `relink program — configure a workspace's partner program (the API has no endpoints for it).

  relink program show --workspace W
  relink program set --workspace W [--name N] [--domain D] [--url U] [--folder ID] [--applications open|closed]
  relink program group set --workspace W [--group default] [--holding-days 0|7|14|30|60|90]
        [--default-link DOMAIN=URL]... [--no-default-links] [--additional-link DOMAIN[/PATH][=exact]]... [--no-additional-links]
        [--utm source=x,medium=y] [--max-partner-links N] [--brand-color #rrggbb] [--logo URL] [--wordmark URL]
  relink program reward set --workspace W --event click|lead|sale --type flat|percentage --amount A
        [--max-duration MONTHS|lifetime] [--group default] [--spend-limit CENTS --spend-interval allTime|day|week|month]
        [--modifiers JSON] [--description TEXT]
        (flat amounts are cents, percentage amounts percent: --amount 10 = 10%)
  relink program reward clear --workspace W --event click|lead|sale [--group default]
  relink program discount set --workspace W --type percentage|flat --amount A [--max-duration MONTHS|lifetime]
        [--group default] [--description TEXT]
        (the group's discount for referred customers, given to its partners; flat amounts are cents)
  relink program resources set --workspace W (--file PATH | --json JSON)
        (JSON {logos:[{name,size,url}], colors:[{name,color}], files:[…], links:[{name,url}]};
        replaces the program's resources shown in the embed's Resources tab; {} clears them)
  relink program bounty add --workspace W --name N --reward CENTS [--type performance|submission] [--goal CENTS]
        [--group SLUG] [--description TEXT] [--starts RFC3339] [--ends RFC3339]
        (performance: partners who earn --goal in sale commissions between start and end claim --reward;
        submission: partners submit proof from the embed's Bounties tab, --reward 0 = set on approval)
  relink program commissions process            move commissions past their holding period to processed
  relink program commissions pay --workspace W [--partner pn_…]   mark processed commissions paid
  relink program commissions clicks [--day YYYY-MM-DD]            create a day's click commissions (default yesterday)
  relink program payouts list --workspace W [--status pending|processing|completed|failed|canceled]
  relink program payouts confirm --workspace W [--payout po_…]...   confirm eligible pending payouts (all by default)
  relink program payouts pay --workspace W --payout po_…...         mark confirmed payouts paid (their commissions too)
  relink program payouts fail --workspace W --payout po_… --reason TEXT   mark confirmed payouts failed
        (Relink moves no money: pay confirmed payouts yourself, then mark them paid.)

W is a workspace slug or ws_ id. Every command prints the result as JSON.
`

// multiFlag collects a repeatable flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func program(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{programUsage}
	}
	cmd := args[0]
	rest := args[1:]
	if (cmd == "group" || cmd == "reward" || cmd == "discount" || cmd == "commissions" || cmd == "resources" || cmd == "bounty" || cmd == "payouts") && len(rest) > 0 {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	fs := newFlags("program " + cmd)
	wsFlag := fs.String("workspace", "", "workspace slug or ws_ id")
	svc, err := app.BuildCommand(ctx, cfg)
	if err != nil {
		return err
	}
	defer svc.Close()
	p := &programCmd{ctx: ctx, cfg: cfg, db: svc.DB, svc: svc, out: stdout, fs: fs, ws: wsFlag}
	switch cmd {
	case "show":
		return p.run(rest, p.show)
	case "set":
		return p.set(rest)
	case "group set":
		return p.groupSet(rest)
	case "reward set":
		return p.rewardSet(rest)
	case "reward clear":
		return p.rewardClear(rest)
	case "discount set":
		return p.discountSet(rest)
	case "resources set":
		return p.resourcesSet(rest)
	case "bounty add":
		return p.bountyAdd(rest)
	case "commissions process":
		return p.commissionsProcess(rest)
	case "commissions pay":
		return p.commissionsPay(rest)
	case "commissions clicks":
		return p.commissionsClicks(rest)
	case "payouts list", "payouts confirm", "payouts pay", "payouts fail":
		return p.payouts(strings.TrimPrefix(cmd, "payouts "), rest)
	}
	return usageError{fmt.Sprintf("unknown program command %q\n\n%s", cmd, programUsage)}
}

type programCmd struct {
	ctx  context.Context
	cfg  *config.Config
	db   *models.DB
	svc  *app.Services // built as serve builds them (app.BuildCommand)
	out  io.Writer
	fs   *flag.FlagSet
	ws   *string
	prog *models.Program
	w    *models.Workspace
}

// parse reads flags and, when needWS, loads the workspace and its program.
func (p *programCmd) parse(args []string, needWS bool) error {
	if err := p.fs.Parse(args); err != nil {
		return usageError{err.Error() + "\n\n" + programUsage}
	}
	if !needWS {
		return nil
	}
	if *p.ws == "" {
		return usageError{"--workspace is required\n\n" + programUsage}
	}
	var err error
	if id, ok := strings.CutPrefix(*p.ws, "ws_"); ok {
		p.w, err = p.db.WorkspaceByID(p.ctx, id)
	} else {
		p.w, err = p.db.WorkspaceBySlug(p.ctx, *p.ws)
	}
	if err != nil {
		return cliErr(err)
	}
	if p.prog, err = p.db.DefaultProgram(p.ctx, p.w.ID); err != nil {
		return cliErr(err)
	}
	return nil
}

func (p *programCmd) run(args []string, fn func() error) error {
	if err := p.parse(args, true); err != nil {
		return err
	}
	return fn()
}

// cliErr turns API errors into plain messages.
func cliErr(err error) error {
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code != apierr.InternalServerError {
		return errors.New(strings.TrimSuffix(ae.Message, "."))
	}
	return err
}

func (p *programCmd) print(v any) error {
	enc := json.NewEncoder(p.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type rewardOut struct {
	ID                 string                  `json:"id"`
	Event              string                  `json:"event"`
	Type               string                  `json:"type"`
	AmountInCents      *int64                  `json:"amountInCents"`
	AmountInPercentage *float64                `json:"amountInPercentage"`
	MaxDuration        *int                    `json:"maxDuration"`
	Description        *string                 `json:"description"`
	Modifiers          []models.RewardModifier `json:"modifiers"`
	SpendLimitAmount   *int64                  `json:"spendLimitAmount"`
	SpendLimitInterval *string                 `json:"spendLimitInterval"`
}

type groupOut struct {
	ID                string                  `json:"id"`
	Name              string                  `json:"name"`
	Slug              string                  `json:"slug"`
	HoldingPeriodDays int                     `json:"holdingPeriodDays"`
	DefaultLinks      []models.DefaultLink    `json:"defaultLinks"`
	AdditionalLinks   []models.AdditionalLink `json:"additionalLinks"`
	UTMTemplate       map[string]string       `json:"utmTemplate"`
	MaxPartnerLinks   int                     `json:"maxPartnerLinks"`
	Logo              *string                 `json:"logo"`
	Wordmark          *string                 `json:"wordmark"`
	BrandColor        *string                 `json:"brandColor"`
	Rewards           map[string]*rewardOut   `json:"rewards"`
}

type programOut struct {
	ID             string     `json:"id"`
	Workspace      string     `json:"workspaceId"`
	Name           string     `json:"name"`
	Domain         *string    `json:"domain"`
	URL            *string    `json:"url"`
	DefaultGroupID *string    `json:"defaultGroupId"`
	Groups         []groupOut `json:"groups"`
}

func toRewardOut(r *models.Reward) *rewardOut {
	o := &rewardOut{ID: r.ID, Event: r.Event, Type: r.Type, AmountInCents: r.AmountInCents, MaxDuration: r.MaxDuration,
		Description: r.Description, SpendLimitAmount: r.SpendLimitAmount, SpendLimitInterval: r.SpendLimitInterval}
	if r.AmountInPercentageBP != nil {
		pct := float64(*r.AmountInPercentageBP) / 100
		o.AmountInPercentage = &pct
	}
	if r.Modifiers.Valid {
		o.Modifiers = r.Modifiers.V
	}
	return o
}

// show prints the program with its groups and rewards.
func (p *programCmd) show() error {
	groups, err := p.db.ListGroups(p.ctx, p.w.ID, p.prog.ID)
	if err != nil {
		return err
	}
	out := programOut{ID: p.prog.ID, Workspace: p.w.PublicID(), Name: p.prog.Name, Domain: p.prog.Domain, URL: p.prog.URL,
		DefaultGroupID: p.prog.DefaultGroupID, Groups: []groupOut{}}
	for _, g := range groups {
		ids := []string{}
		for _, id := range []*string{g.ClickRewardID, g.LeadRewardID, g.SaleRewardID, g.ReferralRewardID} {
			if id != nil {
				ids = append(ids, *id)
			}
		}
		rewards, err := p.db.RewardsByID(p.ctx, p.w.ID, ids)
		if err != nil {
			return err
		}
		gr := groupOut{ID: g.ID, Name: g.Name, Slug: g.Slug, HoldingPeriodDays: g.HoldingPeriodDays,
			DefaultLinks: g.DefaultLinks.V, UTMTemplate: g.UTMTemplate.V, MaxPartnerLinks: g.MaxPartnerLinks,
			Logo: g.Logo, Wordmark: g.Wordmark, BrandColor: g.BrandColor, Rewards: map[string]*rewardOut{}}
		if g.AdditionalLinks.Valid {
			gr.AdditionalLinks = g.AdditionalLinks.V
		}
		for _, r := range rewards {
			gr.Rewards[r.Event] = toRewardOut(r)
		}
		out.Groups = append(out.Groups, gr)
	}
	return p.print(out)
}

// set changes the program's name, partner-link domain, URL or folder.
func (p *programCmd) set(args []string) error {
	name := p.fs.String("name", "", "program name")
	domain := p.fs.String("domain", "", "short domain of partner links (a workspace domain or the default short domain)")
	dest := p.fs.String("url", "", "default destination of partner links")
	folder := p.fs.String("folder", "", "folder id partner links go into")
	apps := p.fs.String("applications", "", "open or closed: whether the public application page /apply/<slug> takes applications")
	if err := p.parse(args, true); err != nil {
		return err
	}
	if *apps != "" {
		if *apps != "open" && *apps != "closed" {
			return usageError{"--applications: want open or closed"}
		}
		if err := p.svc.Conversions.OpenApplications(p.ctx, p.prog, *apps == "open"); err != nil {
			return err
		}
	}
	if *name != "" {
		p.prog.Name = *name
	}
	if *domain != "" {
		d := strings.ToLower(*domain)
		if err := p.svc.Links.CheckProgramDomain(p.ctx, p.w, d); err != nil {
			return cliErr(err)
		}
		p.prog.Domain = &d
	}
	if *dest != "" {
		if !strings.HasPrefix(*dest, "http://") && !strings.HasPrefix(*dest, "https://") {
			return usageError{"--url: want an http(s) URL"}
		}
		p.prog.URL = dest
	}
	if *folder != "" {
		if _, err := p.db.FolderByID(p.ctx, p.w.ID, *folder); err != nil {
			return cliErr(err)
		}
		p.prog.DefaultFolderID = folder
	}
	p.prog.UpdatedAt = time.Now().UTC()
	if err := p.svc.Conversions.SaveProgram(p.ctx, p.prog); err != nil {
		return cliErr(err)
	}
	return p.show()
}

func (p *programCmd) group(sel string) (*models.Group, error) {
	g, err := p.db.GroupByIDOrSlug(p.ctx, p.w.ID, p.prog.ID, sel)
	return g, cliErr(err)
}

// groupSet changes a group's holding period and link rules.
func (p *programCmd) groupSet(args []string) error {
	sel := p.fs.String("group", models.DefaultGroupSlug, "group slug or grp_ id")
	holding := p.fs.Int("holding-days", -1, "holding period in days: 0, 7, 14, 30, 60 or 90")
	var defaults, additional multiFlag
	p.fs.Var(&defaults, "default-link", "DOMAIN=URL: a link every partner of the group gets, those already in it too (repeatable, at most 5; replaces the list)")
	p.fs.Var(&additional, "additional-link", "DOMAIN[/PATH][=exact]: a destination partners may link to (repeatable; replaces the list)")
	noDefaults := p.fs.Bool("no-default-links", false, "no default links: partners enrolled from now on get no link made for them")
	noAdditional := p.fs.Bool("no-additional-links", false, "forbid partner links to other destinations")
	utm := p.fs.String("utm", "", "UTM template: source=x,medium=y,campaign=z (empty value removes it)")
	maxLinks := p.fs.Int("max-partner-links", -1, "most links a partner may create in the embed")
	branding := brandingFlags(p.fs)
	if err := p.parse(args, true); err != nil {
		return err
	}
	g, err := p.group(*sel)
	if err != nil {
		return err
	}
	branding(g)
	if *holding >= 0 {
		g.HoldingPeriodDays = *holding
	}
	if *maxLinks >= 0 {
		g.MaxPartnerLinks = *maxLinks
	}
	if len(defaults) > 0 {
		// A default link already in the list keeps its id, so partners'
		// links made from it still count as made from it.
		known := map[models.DefaultLink]string{}
		for _, d := range g.DefaultLinks.V {
			known[models.DefaultLink{Domain: d.Domain, URL: d.URL}] = d.ID
		}
		var dl []models.DefaultLink
		for _, d := range defaults {
			domain, u, ok := strings.Cut(d, "=")
			if !ok || domain == "" || !strings.HasPrefix(u, "http") {
				return usageError{fmt.Sprintf("--default-link %q: want DOMAIN=URL", d)}
			}
			l := models.DefaultLink{Domain: strings.ToLower(domain), URL: u}
			l.ID = known[l]
			dl = append(dl, l)
		}
		g.DefaultLinks = models.Some(dl)
	}
	if *noDefaults {
		g.DefaultLinks = models.Some([]models.DefaultLink{})
	}
	if *noAdditional {
		g.AdditionalLinks = models.JSONCol[[]models.AdditionalLink]{}
	}
	if len(additional) > 0 {
		var al []models.AdditionalLink
		for _, a := range additional {
			spec, mode, _ := strings.Cut(a, "=")
			if mode == "" {
				mode = "domain"
			}
			if mode != "domain" && mode != "exact" {
				return usageError{fmt.Sprintf("--additional-link %q: mode must be domain or exact", a)}
			}
			domain, path, _ := strings.Cut(spec, "/")
			if path != "" {
				path = "/" + path
			}
			al = append(al, models.AdditionalLink{Domain: strings.ToLower(domain), Path: path, ValidationMode: mode})
		}
		g.AdditionalLinks = models.Some(al)
	}
	if *utm != "" {
		tpl := map[string]string{}
		if g.UTMTemplate.Valid {
			tpl = g.UTMTemplate.V
		}
		for _, kv := range strings.Split(*utm, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
			k = "utm_" + strings.TrimPrefix(k, "utm_")
			if v == "" {
				delete(tpl, k)
			} else {
				tpl[k] = v
			}
		}
		g.UTMTemplate = models.Some(tpl)
	}
	g.UpdatedAt = time.Now().UTC()
	if err := p.svc.Conversions.SaveGroup(p.ctx, g); err != nil {
		return cliErr(err)
	}
	if len(defaults) > 0 {
		// Partners already in the group get the new default links too.
		if _, err := p.svc.Conversions.SyncDefaultLinks(p.ctx, p.w, g); err != nil {
			return cliErr(err)
		}
	}
	return p.show()
}

// brandingFlags declares --brand-color, --logo and --wordmark (Dub's group
// branding); the returned func sets on a group those given ("" clears).
func brandingFlags(fs *flag.FlagSet) func(g *models.Group) {
	color := fs.String("brand-color", "", "accent of the group's partner dashboards (embed and portal): #rrggbb; \"\" resets to #2563eb")
	logo := fs.String("logo", "", "logo image URL shown on the group's partner dashboards; \"\" removes it")
	wordmark := fs.String("wordmark", "", "wordmark image URL (stored and reported); \"\" removes it")
	return func(g *models.Group) {
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "brand-color":
				g.BrandColor = optional(*color)
			case "logo":
				g.Logo = optional(*logo)
			case "wordmark":
				g.Wordmark = optional(*wordmark)
			}
		})
	}
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// rewardSet replaces a group's reward for an event.
func (p *programCmd) rewardSet(args []string) error {
	sel := p.fs.String("group", models.DefaultGroupSlug, "group slug or grp_ id")
	event := p.fs.String("event", "", "click, lead or sale")
	typ := p.fs.String("type", models.RewardFlat, "flat or percentage")
	amount := p.fs.String("amount", "", "cents for flat rewards, percent (up to 2 decimals) for percentage rewards")
	maxDur := p.fs.String("max-duration", "", "sale rewards: months they pay for after the first sale (0 = first sale only); lifetime or empty = forever")
	spend := p.fs.Int64("spend-limit", -1, "cap in cents per interval")
	interval := p.fs.String("spend-interval", "allTime", "allTime, day, week or month")
	mods := p.fs.String("modifiers", "", "JSON array of modifier groups (spec/partners-and-embed.md §4.1)")
	desc := p.fs.String("description", "", "description shown to partners")
	if err := p.parse(args, true); err != nil {
		return err
	}
	if *event == "" || *amount == "" {
		return usageError{"--event and --amount are required\n\n" + programUsage}
	}
	g, err := p.group(*sel)
	if err != nil {
		return err
	}
	// The console's reward form and this command share one mapping; flat
	// amounts are given in cents here.
	r, err := conversions.RewardForm{Event: *event, Type: *typ, Amount: *amount, FlatInCents: true, MaxDuration: *maxDur}.Reward()
	if err != nil {
		msg := apierr.As(err).Message
		if strings.Contains(msg, ": maxDuration: ") {
			return usageError{fmt.Sprintf("--max-duration %q: want months or lifetime", *maxDur)}
		}
		return usageError{fmt.Sprintf("--amount %q: %s", *amount, msg[strings.LastIndex(msg, ": ")+2:])}
	}
	if *spend >= 0 {
		r.SpendLimitAmount = spend
		switch *interval {
		case "allTime", "day", "week", "month":
			r.SpendLimitInterval = interval
		default:
			return usageError{"--spend-interval: want allTime, day, week or month"}
		}
	}
	if *mods != "" {
		var m []models.RewardModifier
		if err := json.Unmarshal([]byte(*mods), &m); err != nil {
			return usageError{"--modifiers: " + err.Error()}
		}
		r.Modifiers = models.Some(m)
	}
	if *desc != "" {
		r.Description = desc
	}
	now := time.Now().UTC()
	r.CreatedAt, r.UpdatedAt = now, now
	if err := p.svc.Conversions.SetGroupReward(p.ctx, g, r); err != nil {
		return cliErr(err)
	}
	return p.print(toRewardOut(r))
}

// rewardClear removes a group's reward for an event.
func (p *programCmd) rewardClear(args []string) error {
	sel := p.fs.String("group", models.DefaultGroupSlug, "group slug or grp_ id")
	event := p.fs.String("event", "", "click, lead or sale")
	if err := p.parse(args, true); err != nil {
		return err
	}
	g, err := p.group(*sel)
	if err != nil {
		return err
	}
	if err := p.db.ClearGroupReward(p.ctx, g, *event); err != nil {
		return cliErr(err)
	}
	return p.show()
}

// discountSet gives a group a new discount (spec/parity.md §8.1).
func (p *programCmd) discountSet(args []string) error {
	sel := p.fs.String("group", models.DefaultGroupSlug, "group slug or grp_ id")
	typ := p.fs.String("type", models.DiscountPercentage, "percentage or flat")
	amount := p.fs.Int64("amount", -1, "percent, or cents for flat")
	maxDur := p.fs.String("max-duration", "lifetime", "months, or lifetime")
	desc := p.fs.String("description", "", "text shown instead of the generated sentence")
	if err := p.parse(args, true); err != nil {
		return err
	}
	if *amount < 0 {
		return usageError{"--amount is required\n\n" + programUsage}
	}
	g, err := p.group(*sel)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	d := &models.Discount{ID: ids.New(ids.Discount), Type: *typ, Amount: *amount, CreatedAt: now, UpdatedAt: now}
	if *maxDur != "lifetime" && *maxDur != "" {
		n, err := strconv.Atoi(*maxDur)
		if err != nil {
			return usageError{"--max-duration: want a number of months or lifetime\n\n" + programUsage}
		}
		d.MaxDuration = &n
	}
	if *desc != "" {
		d.Description = desc
	}
	if err := p.svc.Conversions.SetGroupDiscount(p.ctx, g, d); err != nil {
		return cliErr(err)
	}
	return p.print(d)
}

type countOut struct {
	Count int64 `json:"count"`
}

func (p *programCmd) commissionsProcess(args []string) error {
	if err := p.parse(args, false); err != nil {
		return err
	}
	n, err := p.db.ProcessDueCommissions(p.ctx, time.Now())
	if err != nil {
		return err
	}
	return p.print(countOut{Count: n})
}

func (p *programCmd) commissionsPay(args []string) error {
	partner := p.fs.String("partner", "", "only this partner's commissions")
	if err := p.parse(args, true); err != nil {
		return err
	}
	n, err := p.svc.Conversions.MarkCommissionsPaid(p.ctx, p.prog, *partner)
	if err != nil {
		return err
	}
	// Paid still counts in totalCommissions: no totals change.
	return p.print(countOut{Count: n})
}

func (p *programCmd) commissionsClicks(args []string) error {
	day := p.fs.String("day", "", "UTC day, YYYY-MM-DD (default yesterday)")
	if err := p.parse(args, false); err != nil {
		return err
	}
	d := time.Now().UTC().Add(-24 * time.Hour)
	if *day != "" {
		var err error
		if d, err = time.Parse("2006-01-02", *day); err != nil {
			return usageError{"--day: want YYYY-MM-DD"}
		}
	}
	n, err := p.svc.Conversions.ClickCommissions(p.ctx, d)
	if err != nil {
		return err
	}
	return p.print(countOut{Count: int64(n)})
}

// resourcesSet replaces the program's resources (the embed's Resources tab).
func (p *programCmd) resourcesSet(args []string) error {
	file := p.fs.String("file", "", "JSON file with {logos, colors, files, links}")
	raw := p.fs.String("json", "", "the same JSON inline")
	if err := p.parse(args, true); err != nil {
		return err
	}
	data := []byte(*raw)
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			return fmt.Errorf("read resources: %w", err)
		}
		data = b
	}
	if len(data) == 0 {
		return usageError{"--file or --json is required\n\n" + programUsage}
	}
	var r models.ProgramResources
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return usageError{"resources: " + err.Error()}
	}
	if err := r.Validate(); err != nil {
		return cliErr(err)
	}
	assign := func(prefix string, i int, id *string) {
		if *id == "" {
			*id = fmt.Sprintf("%s%d", prefix, i+1)
		}
	}
	for i := range r.Logos {
		assign("logo_", i, &r.Logos[i].ID)
	}
	for i := range r.Files {
		assign("file_", i, &r.Files[i].ID)
	}
	for i := range r.Colors {
		assign("color_", i, &r.Colors[i].ID)
	}
	for i := range r.Links {
		assign("link_", i, &r.Links[i].ID)
	}
	p.prog.Resources = models.Some(r)
	if r.Empty() {
		p.prog.Resources = models.JSONCol[models.ProgramResources]{}
	}
	p.prog.UpdatedAt = time.Now().UTC()
	if err := p.svc.Conversions.SaveProgram(p.ctx, p.prog); err != nil {
		return cliErr(err)
	}
	return p.print(r)
}

// bountyAdd creates a performance bounty.
func (p *programCmd) bountyAdd(args []string) error {
	name := p.fs.String("name", "", "bounty name")
	desc := p.fs.String("description", "", "what partners have to do")
	reward := p.fs.Int64("reward", 0, "bonus in cents")
	goal := p.fs.Int64("goal", 0, "sale commission earnings to reach, in cents")
	typ := p.fs.String("type", models.BountyPerformance, "performance (reach --goal) or submission (partners submit proof)")
	sel := p.fs.String("group", "", "group slug or grp_ id (default: every group)")
	starts := p.fs.String("starts", "", "start, RFC 3339 (default now)")
	ends := p.fs.String("ends", "", "end, RFC 3339 (default open-ended)")
	if err := p.parse(args, true); err != nil {
		return err
	}
	now := time.Now().UTC()
	b := &models.Bounty{WorkspaceID: p.w.ID, ProgramID: p.prog.ID, Name: *name, Type: *typ, RewardAmount: *reward, GoalEarnings: *goal, StartsAt: now}
	if *desc != "" {
		b.Description = desc
	}
	if *sel != "" {
		g, err := p.group(*sel)
		if err != nil {
			return err
		}
		b.GroupID = &g.ID
	}
	if *starts != "" {
		t, err := time.Parse(time.RFC3339, *starts)
		if err != nil {
			return usageError{"--starts: want RFC 3339, e.g. 2026-05-01T00:00:00Z"}
		}
		b.StartsAt = t
	}
	if *ends != "" {
		t, err := time.Parse(time.RFC3339, *ends)
		if err != nil {
			return usageError{"--ends: want RFC 3339, e.g. 2026-06-01T00:00:00Z"}
		}
		b.EndsAt = &t
	}
	if err := p.svc.Conversions.CreateBounty(p.ctx, b); err != nil { // emits bounty.created
		return cliErr(err)
	}
	return p.print(map[string]any{"id": b.ID, "name": b.Name, "type": b.Type, "groupId": b.GroupID, "rewardAmount": b.RewardAmount,
		"goalEarnings": b.GoalEarnings, "startsAt": b.StartsAt, "endsAt": b.EndsAt})
}

type payoutOut struct {
	ID            string     `json:"id"`
	PartnerID     string     `json:"partnerId"`
	Amount        int64      `json:"amount"`
	Currency      string     `json:"currency"`
	Status        string     `json:"status"`
	Batch         *string    `json:"invoiceId"`
	PeriodStart   *time.Time `json:"periodStart"`
	PeriodEnd     *time.Time `json:"periodEnd"`
	PaidAt        *time.Time `json:"paidAt"`
	FailureReason *string    `json:"failureReason"`
}

// payouts lists, confirms, pays or fails payouts (spec/parity.md §4.4, Relink's
// operator flow). Commissions due are aggregated first.
func (p *programCmd) payouts(verb string, args []string) error {
	status := p.fs.String("status", "", "only payouts with this status (list)")
	reason := p.fs.String("reason", "", "why the payment failed (fail)")
	var ids multiFlag
	p.fs.Var(&ids, "payout", "payout id (repeatable)")
	if err := p.parse(args, true); err != nil {
		return err
	}
	now := time.Now()
	if _, err := p.db.AggregateProgram(p.ctx, p.w.ID, p.prog.ID, now); err != nil {
		return err
	}
	var ps []models.Payout
	var err error
	switch verb {
	case "list":
		ps, err = p.db.ListPayouts(p.ctx, p.w.ID, p.prog.ID, models.PayoutQuery{Status: *status, SortBy: "createdAt", Desc: true})
	case "confirm":
		_, ps, err = p.svc.Conversions.ConfirmPayouts(p.ctx, p.prog, ids, nil)
	case "pay", "fail":
		if len(ids) == 0 {
			return usageError{"--payout is required\n\n" + programUsage}
		}
		if verb == "pay" {
			ps, err = p.svc.Conversions.CompletePayouts(p.ctx, p.prog, ids)
		} else if *reason == "" {
			return usageError{"--reason is required\n\n" + programUsage}
		} else {
			ps, err = p.svc.Conversions.FailPayouts(p.ctx, p.prog, ids, *reason)
		}
	}
	if err != nil {
		return cliErr(err)
	}
	out := make([]payoutOut, len(ps))
	for i, po := range ps {
		out[i] = payoutOut{ID: po.ID, PartnerID: po.PartnerID, Amount: po.Amount, Currency: po.Currency, Status: po.Status, Batch: po.InvoiceID,
			PeriodStart: po.PeriodStart, PeriodEnd: po.PeriodEnd, PaidAt: po.PaidAt, FailureReason: po.FailureReason}
	}
	return p.print(out)
}
