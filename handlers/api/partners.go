package api

import (
	"regexp"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/conversions"
	"github.com/relinkhq/relink/internal/input"
	"github.com/relinkhq/relink/internal/links"
	"github.com/relinkhq/relink/models"
)

// enrolledPartnerJSON is the enrolled-partner object (spec/partners-and-embed.md
// §3.2): every key the SDK requires present, nullable ones as null.
type enrolledPartnerJSON struct {
	ID                    string            `json:"id"`
	Name                  string            `json:"name"`
	Username              *string           `json:"username"`
	Email                 *string           `json:"email"`
	Image                 *string           `json:"image"`
	Description           *string           `json:"description"`
	Country               *string           `json:"country"`
	CompanyName           *string           `json:"companyName"`
	NetworkStatus         string            `json:"networkStatus"`
	DefaultPayoutMethod   *string           `json:"defaultPayoutMethod"`
	PaypalEmail           *string           `json:"paypalEmail"`
	StripeConnectID       *string           `json:"stripeConnectId"`
	PayoutsEnabledAt      *string           `json:"payoutsEnabledAt"`
	IdentityVerifiedAt    *string           `json:"identityVerifiedAt"`
	ProgramID             string            `json:"programId"`
	GroupID               *string           `json:"groupId"`
	PartnerID             string            `json:"partnerId"`
	TenantID              *string           `json:"tenantId"`
	CreatedAt             string            `json:"createdAt"`
	Status                string            `json:"status"`
	Links                 []partnerLinkJSON `json:"links"`
	TotalCommissions      int64             `json:"totalCommissions"`
	ClickRewardID         *string           `json:"clickRewardId"`
	LeadRewardID          *string           `json:"leadRewardId"`
	SaleRewardID          *string           `json:"saleRewardId"`
	ReferralRewardID      *string           `json:"referralRewardId"`
	DiscountID            *string           `json:"discountId"`
	ApplicationID         *string           `json:"applicationId"`
	BannedAt              *string           `json:"bannedAt"`
	BannedReason          *string           `json:"bannedReason"`
	ReferralFormData      *struct{}         `json:"referralFormData"`
	Application           *struct{}         `json:"application"`
	Tags                  []struct{}        `json:"tags"`
	TotalClicks           int64             `json:"totalClicks"`
	TotalLeads            int64             `json:"totalLeads"`
	TotalConversions      int64             `json:"totalConversions"`
	TotalSales            int64             `json:"totalSales"`
	TotalSaleAmount       int64             `json:"totalSaleAmount"`
	NetRevenue            int64             `json:"netRevenue"`
	EarningsPerClick      float64           `json:"earningsPerClick"`
	AverageLifetimeValue  *float64          `json:"averageLifetimeValue"`
	ClickToLeadRate       *float64          `json:"clickToLeadRate"`
	ClickToConversionRate *float64          `json:"clickToConversionRate"`
	LeadToConversionRate  *float64          `json:"leadToConversionRate"`
	ReturnOnAdSpend       *float64          `json:"returnOnAdSpend"`

	// Deprecated aliases GET /partners adds (§3.4).
	Clicks      *int64 `json:"clicks,omitempty"`
	Leads       *int64 `json:"leads,omitempty"`
	Conversions *int64 `json:"conversions,omitempty"`
	Sales       *int64 `json:"sales,omitempty"`
	SaleAmount  *int64 `json:"saleAmount,omitempty"`
}

// partnerLinkJSON is a partner's link in the enrolled-partner object and in
// GET /partners/links.
type partnerLinkJSON struct {
	ID          string `json:"id"`
	Domain      string `json:"domain"`
	Key         string `json:"key"`
	ShortLink   string `json:"shortLink"`
	URL         string `json:"url"`
	Clicks      int64  `json:"clicks"`
	Leads       int64  `json:"leads"`
	Conversions int64  `json:"conversions"`
	Sales       int64  `json:"sales"`
	SaleAmount  int64  `json:"saleAmount"`
}

func ratio(a, b int64) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

func (h *Handlers) partnerLinksJSON(ls []models.Link) []partnerLinkJSON {
	out := make([]partnerLinkJSON, len(ls))
	for i := range ls {
		l := &ls[i]
		out[i] = partnerLinkJSON{ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: h.Links.ShortLink(l), URL: l.URL,
			Clicks: l.Clicks, Leads: l.Leads, Conversions: l.Conversions, Sales: l.Sales, SaleAmount: l.SaleAmount}
	}
	return out
}

func (h *Handlers) toEnrolledPartnerJSON(ep *models.EnrolledPartner) enrolledPartnerJSON {
	p, e, st := &ep.Partner, &ep.Enrollment, ep.Stats
	email := p.Email
	j := enrolledPartnerJSON{
		ID: p.ID, Name: p.Name, Username: p.Username, Email: &email, Image: p.Image, Description: p.Description,
		Country: p.Country, CompanyName: p.CompanyName, NetworkStatus: p.NetworkStatus, DefaultPayoutMethod: p.DefaultPayoutMethod,
		PaypalEmail: p.PaypalEmail, StripeConnectID: p.StripeConnectID, PayoutsEnabledAt: optTime(p.PayoutsEnabledAt),
		IdentityVerifiedAt: optTime(p.IdentityVerifiedAt),
		ProgramID:          e.ProgramID, GroupID: e.GroupID, PartnerID: p.ID, TenantID: e.TenantID, CreatedAt: request.Timestamp(e.CreatedAt),
		Status: e.Status, Links: h.partnerLinksJSON(ep.Links), TotalCommissions: st.Commissions,
		ClickRewardID: e.ClickRewardID, LeadRewardID: e.LeadRewardID, SaleRewardID: e.SaleRewardID,
		ReferralRewardID: e.ReferralRewardID, DiscountID: e.DiscountID, ApplicationID: e.ApplicationID,
		BannedAt: optTime(e.BannedAt), BannedReason: e.BannedReason, Tags: []struct{}{},
		TotalClicks: st.Clicks, TotalLeads: st.Leads, TotalConversions: st.Conversions, TotalSales: st.Sales,
		TotalSaleAmount: st.SaleAmount, NetRevenue: st.SaleAmount - st.Commissions,
		AverageLifetimeValue: ratio(st.SaleAmount, st.Conversions), ClickToLeadRate: ratio(st.Leads, st.Clicks),
		ClickToConversionRate: ratio(st.Conversions, st.Clicks), LeadToConversionRate: ratio(st.Conversions, st.Leads),
		ReturnOnAdSpend: ratio(st.SaleAmount, st.Commissions),
	}
	if epc := ratio(st.SaleAmount, st.Clicks); epc != nil {
		j.EarningsPerClick = *epc
	}
	return j
}

var usernameRe = regexp.MustCompile(`^[\p{L}\p{N}_-]+$`)

// parsePartnerBody reads a POST /partners body (§3.3), or the partner
// object of POST /tokens/embed/referrals.
func parsePartnerBody(o *input.Object) conversions.EnrollInput {
	var in conversions.EnrollInput
	if v := o.Str("email", input.Str{Required: true, Trim: true, Max: 190, Check: input.Email}).Ptr(); v != nil {
		in.Email = *v
	}
	in.Name = o.Str("name", input.Str{Trim: true, Max: 100}).Ptr()
	if in.Name != nil && *in.Name == "" {
		in.Name = nil
	}
	if in.Username = o.Str("username", input.Str{Trim: true, Max: 100}).Ptr(); in.Username != nil {
		if *in.Username == "" {
			in.Username = nil
		} else if !usernameRe.MatchString(*in.Username) {
			o.Fail("custom", "username", "Invalid username. Must be a URL-friendly string.")
		}
	}
	in.Image = o.Str("image", input.Str{Check: input.URL}).Ptr()
	if v := o.Str("tenantId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.TenantID = *v
	}
	if v := o.Str("groupId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		in.GroupID = *v
	}
	if in.Country = o.Str("country", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); in.Country != nil {
		if len(*in.Country) != 2 {
			o.Fail("invalid_format", "country", "Invalid country code: use an ISO 3166-1 alpha-2 code.")
		}
		up := strings.ToUpper(*in.Country)
		in.Country = &up
	}
	in.Description = o.Str("description", input.Str{Max: 5000}).Ptr()
	in.LinkProps = parseLinkProps(o)
	return in
}

// parseLinkProps reads the linkProps object with the links API's rules.
func parseLinkProps(o *input.Object) *conversions.LinkProps {
	raw, ok := o.Present("linkProps")
	if !ok || o.Err() != nil {
		return nil
	}
	in, err := links.ParseLinkProps(raw, o.Path("linkProps"))
	if err != nil {
		o.SetErr(err)
		return nil
	}
	props := &conversions.LinkProps{Input: in}
	if p := o.Child("linkProps"); p != nil {
		if v := p.Str("prefix", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
			props.Prefix = *v
		}
		if p.Err() != nil {
			o.SetErr(p.Err())
		}
	}
	return props
}

// CreatePartner answers POST /partners: 201 with the enrolled partner, also
// when the partner was already enrolled.
func (h *Handlers) CreatePartner(c *fiber.Ctx) error {
	o, err := input.DecodeNullish(c.Body())
	if err != nil {
		return err
	}
	in := parsePartnerBody(o)
	if o.Err() != nil {
		return o.Err()
	}
	in.UserID = actor(c).UserID
	ep, err := h.Conversions.EnrollPartner(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(h.toEnrolledPartnerJSON(ep))
}

// partnerSorts lists GET /partners sortBy values, legacy names last.
var partnerSorts = []string{"totalSaleAmount", "createdAt", "totalClicks", "totalLeads", "totalConversions", "totalSales",
	"totalCommissions", "netRevenue", "earningsPerClick", "averageLifetimeValue", "clickToLeadRate", "clickToConversionRate",
	"leadToConversionRate", "returnOnAdSpend", "clicks", "leads", "conversions", "sales", "saleAmount"}

var legacyPartnerSorts = map[string]string{"clicks": "totalClicks", "leads": "totalLeads", "conversions": "totalConversions",
	"sales": "totalSales", "saleAmount": "totalSaleAmount"}

// ListPartners answers GET /partners (§3.4).
func (h *Handlers) ListPartners(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	p, err := ParsePage(c, PageSpec{DefaultPageSize: 100, MaxPageSize: 100, SortBy: partnerSorts, DefaultOrder: "desc"})
	if err != nil {
		return err
	}
	if v, ok := legacyPartnerSorts[p.SortBy]; ok {
		p.SortBy = v
	}
	q := models.PartnerQuery{
		GroupID: models.ParseSetFilter(c.Query("groupId")), Country: models.ParseSetFilter(c.Query("country")),
		Email: c.Query("email"), TenantID: c.Query("tenantId"), Search: c.Query("search"),
		SortBy: p.SortBy, Desc: p.Desc(), Limit: p.PageSize, Offset: p.Offset(), PartnerIDs: queryList(c, "partnerIds"),
	}
	if s := c.Query("status"); s != "" {
		if !contains(models.EnrollmentStatuses, s) {
			return apierr.Validation("invalid_value", "status", "Invalid option: expected one of "+request.Options(models.EnrollmentStatuses))
		}
		q.Status = s
	}
	prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
	if err != nil {
		return err
	}
	list, err := h.DB.ListEnrolledPartners(c.UserContext(), ws.ID, prog.ID, q)
	if err != nil {
		return err
	}
	out := make([]enrolledPartnerJSON, len(list))
	for i := range list {
		j := h.toEnrolledPartnerJSON(&list[i])
		j.Clicks, j.Leads, j.Conversions, j.Sales, j.SaleAmount = &j.TotalClicks, &j.TotalLeads, &j.TotalConversions, &j.TotalSales, &j.TotalSaleAmount
		out[i] = j
	}
	return c.JSON(out)
}

// queryList reads a list query parameter as Dub's schemas do: repeated
// (?a=x&a=y) or comma-separated (?a=x,y), empty items dropped.
func queryList(c *fiber.Ctx, name string) []string {
	var out []string
	for _, v := range c.Context().QueryArgs().PeekMulti(name) {
		for _, s := range strings.Split(string(v), ",") {
			if s = strings.TrimSpace(s); s != "" && !contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// enrolledPartnerExtended is Dub's EnrolledPartnerSchemaExtended (GET
// /partners/{partnerId}): the enrolled partner and the profile fields
// Relink has no data for, at Dub's empty values.
type enrolledPartnerExtended struct {
	enrolledPartnerJSON
	LastLeadAt                   *string    `json:"lastLeadAt"`
	LastConversionAt             *string    `json:"lastConversionAt"`
	CustomerDataSharingEnabledAt *string    `json:"customerDataSharingEnabledAt"`
	GroupMoveDisabledAt          *string    `json:"groupMoveDisabledAt"`
	RiskMonitoringDisabledAt     *string    `json:"riskMonitoringDisabledAt"`
	Platforms                    []struct{} `json:"platforms"`
	Discount                     *struct {
		ID       string  `json:"id"`
		Provider *string `json:"provider"`
	} `json:"discount"`
	MonthlyTraffic             *string    `json:"monthlyTraffic"`
	IndustryInterests          []struct{} `json:"industryInterests"`
	PreferredEarningStructures []struct{} `json:"preferredEarningStructures"`
	SalesChannels              []struct{} `json:"salesChannels"`
}

// GetPartner answers GET /partners/{partnerId} (Dub's
// app/(ee)/api/partners/[partnerId]/route.ts): the partner enrolled in the
// workspace's program, 404 "Partner not found." otherwise.
func (h *Handlers) GetPartner(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
	if err != nil {
		return err
	}
	ep, err := h.DB.EnrolledPartnerByID(c.UserContext(), ws.ID, prog.ID, c.Params("partnerId"))
	if apierr.Is(err, apierr.NotFound) {
		return apierr.New(apierr.NotFound, "Partner not found.")
	} else if err != nil {
		return err
	}
	j := enrolledPartnerExtended{enrolledPartnerJSON: h.toEnrolledPartnerJSON(ep), Platforms: []struct{}{},
		IndustryInterests: []struct{}{}, PreferredEarningStructures: []struct{}{}, SalesChannels: []struct{}{}}
	if d := ep.Enrollment.DiscountID; d != nil {
		j.Discount = &struct {
			ID       string  `json:"id"`
			Provider *string `json:"provider"`
		}{ID: *d}
	}
	return c.JSON(j)
}

// partnerSelector reads partnerId / tenantId from a body.
func partnerSelector(o *input.Object) conversions.PartnerSelector {
	var s conversions.PartnerSelector
	if v := o.Str("partnerId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		s.PartnerID = *v
	}
	if v := o.Str("tenantId", input.Str{Trim: true, Max: input.MaxIdentifier}).Ptr(); v != nil {
		s.TenantID = *v
	}
	return s
}

// parsePartnerLink validates POST /partners/links and PUT
// /partners/links/upsert bodies; upsert requires url.
func parsePartnerLink(body []byte, upsert bool) (conversions.PartnerLinkInput, error) {
	var in conversions.PartnerLinkInput
	o, err := input.DecodeNullish(body)
	if err != nil {
		return in, err
	}
	in.PartnerSelector = partnerSelector(o)
	if v := o.Str("url", input.Str{Required: upsert, Trim: true, Max: 32000}).Ptr(); v != nil && *v != "" {
		in.URL = links.URLify(*v)
		if !links.ValidURL(in.URL) || links.UnsafeScheme(in.URL) {
			o.Fail("invalid_format", "url", "Invalid URL")
		}
	}
	if v := o.Str("key", input.Str{Trim: true, Max: 190}).Ptr(); v != nil {
		in.Key = *v
	}
	o.Str("comments", input.Str{Max: input.MaxIdentifier}).Ptr()
	in.LinkProps = parseLinkProps(o)
	return in, o.Err()
}

// CreatePartnerLink answers POST /partners/links with 201 and the link.
func (h *Handlers) CreatePartnerLink(c *fiber.Ctx) error {
	in, err := parsePartnerLink(c.Body(), false)
	if err != nil {
		return err
	}
	in.UserID = actor(c).UserID
	l, err := h.Conversions.CreatePartnerLink(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(h.toLinkJSON(l))
}

// UpsertPartnerLink answers PUT /partners/links/upsert with 200 and the link.
func (h *Handlers) UpsertPartnerLink(c *fiber.Ctx) error {
	in, err := parsePartnerLink(c.Body(), true)
	if err != nil {
		return err
	}
	in.UserID = actor(c).UserID
	l, err := h.Conversions.UpsertPartnerLink(c.UserContext(), request.Workspace(c), in)
	if err != nil {
		return err
	}
	return c.JSON(h.toLinkJSON(l))
}

// ListPartnerLinks answers GET /partners/links.
func (h *Handlers) ListPartnerLinks(c *fiber.Ctx) error {
	ws := request.Workspace(c)
	prog, err := h.DB.DefaultProgram(c.UserContext(), ws.ID)
	if err != nil {
		return err
	}
	e, err := h.Conversions.ResolveEnrollment(c.UserContext(), h.DB, ws, prog,
		conversions.PartnerSelector{PartnerID: c.Query("partnerId"), TenantID: c.Query("tenantId")})
	if err != nil {
		return err
	}
	ls, err := h.DB.PartnerLinks(c.UserContext(), ws.ID, prog.ID, e.PartnerID)
	if err != nil {
		return err
	}
	return c.JSON(h.partnerLinksJSON(ls))
}

type analyticsCountJSON struct {
	Clicks     int64 `json:"clicks"`
	Leads      int64 `json:"leads"`
	Sales      int64 `json:"sales"`
	SaleAmount int64 `json:"saleAmount"`
	Earnings   int64 `json:"earnings"`
}

type analyticsTimeseriesJSON struct {
	Start string `json:"start"`
	analyticsCountJSON
}

type analyticsTopLinkJSON struct {
	Link      string  `json:"link"`
	ID        string  `json:"id"`
	Domain    string  `json:"domain"`
	Key       string  `json:"key"`
	ShortLink string  `json:"shortLink"`
	URL       string  `json:"url"`
	Title     *string `json:"title"`
	Comments  *string `json:"comments"`
	FolderID  *string `json:"folderId"`
	PartnerID *string `json:"partnerId"`
	CreatedAt string  `json:"createdAt"`
	analyticsCountJSON
}

func countJSON(r conversions.AnalyticsRow) analyticsCountJSON {
	return analyticsCountJSON{Clicks: r.Clicks, Leads: r.Leads, Sales: r.Sales, SaleAmount: r.SaleAmount, Earnings: r.Earnings}
}

// parseWindow reads interval (default all), start, end and timezone.
func parseWindow(c *fiber.Ctx) (interval string, start, end *time.Time, loc *time.Location, err error) {
	return request.ParseWindow(c, "all")
}

var analyticsGroupBys = []string{"count", "timeseries", "top_links"}

// PartnerAnalytics answers GET /partners/analytics (§3.6).
func (h *Handlers) PartnerAnalytics(c *fiber.Ctx) error {
	q := conversions.AnalyticsQuery{
		PartnerSelector: conversions.PartnerSelector{PartnerID: c.Query("partnerId"), TenantID: c.Query("tenantId")},
		GroupBy:         c.Query("groupBy", "count"),
	}
	if !contains(analyticsGroupBys, q.GroupBy) {
		return apierr.Validation("invalid_value", "groupBy", "Invalid option: expected one of "+request.Options(analyticsGroupBys))
	}
	var err error
	if q.Interval, q.Start, q.End, q.Location, err = parseWindow(c); err != nil {
		return err
	}
	r, err := h.Conversions.PartnerAnalytics(c.UserContext(), request.Workspace(c), q)
	if err != nil {
		return err
	}
	switch q.GroupBy {
	case "timeseries":
		out := make([]analyticsTimeseriesJSON, len(r.Timeseries))
		for i, row := range r.Timeseries {
			out[i] = analyticsTimeseriesJSON{Start: request.Timestamp(row.Start), analyticsCountJSON: countJSON(row)}
		}
		return c.JSON(out)
	case "top_links":
		out := make([]analyticsTopLinkJSON, len(r.TopLinks))
		for i, t := range r.TopLinks {
			l := &t.Link
			out[i] = analyticsTopLinkJSON{Link: l.ID, ID: l.ID, Domain: l.Domain, Key: l.Key, ShortLink: h.Links.ShortLink(l),
				URL: l.URL, Title: l.Title, Comments: l.Comments, FolderID: l.FolderID, PartnerID: l.PartnerID,
				CreatedAt: request.Timestamp(l.CreatedAt), analyticsCountJSON: countJSON(t.AnalyticsRow)}
		}
		return c.JSON(out)
	}
	return c.JSON(countJSON(r.Count))
}
