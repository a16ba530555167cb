package wire

import "github.com/relinkhq/relink/models"

// ApplicationPartner is the partner of partner.application_submitted
// (spec/webhooks.md §3.6), keys in the spec's order.
type ApplicationPartner struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	CompanyName *string `json:"companyName"`
	Email       *string `json:"email"`
	Image       *string `json:"image"`
	Description *string `json:"description"`
	Country     *string `json:"country"`
	GroupID     *string `json:"groupId"`
	Status      string  `json:"status"`
	Website     *string `json:"website"`
	Youtube     *string `json:"youtube"`
	Twitter     *string `json:"twitter"`
	Linkedin    *string `json:"linkedin"`
	Instagram   *string `json:"instagram"`
	Tiktok      *string `json:"tiktok"`
}

// ApplicationSubmittedData is partner.application_submitted's data, and
// the application object of the API (spec/parity.md §5.3) with the
// enrollment's group and status.
type ApplicationSubmittedData struct {
	ID                  string                     `json:"id"`
	CreatedAt           string                     `json:"createdAt"`
	Partner             ApplicationPartner         `json:"partner"`
	ApplicationFormData []models.ApplicationAnswer `json:"applicationFormData"`
}

// PendingApplicationOf writes a pending application as the API answers it
// (spec/parity.md §5.3): partner.application_submitted's data, the
// enrollment's group and status in place of the pending ones.
func PendingApplicationOf(pa *models.PendingApplication) ApplicationSubmittedData {
	j := ApplicationSubmittedOf(&pa.Application, &pa.Partner)
	j.Partner.GroupID, j.Partner.Status = pa.Enrollment.GroupID, pa.Enrollment.Status
	return j
}

// ApplicationSubmittedOf renders an application and its partner, whose
// enrollment is pending. Empty answers are null (spec/webhooks.md §3.6).
func ApplicationSubmittedOf(a *models.ProgramApplication, p *models.Partner) ApplicationSubmittedData {
	email, country := p.Email, p.Country
	if country == nil {
		country = a.Country
	}
	form := []models.ApplicationAnswer{}
	if a.FormData.Valid {
		for _, ans := range a.FormData.V {
			if ans.Value != nil && *ans.Value == "" {
				ans.Value = nil
			}
			form = append(form, ans)
		}
	}
	return ApplicationSubmittedData{ID: a.ID, CreatedAt: Timestamp(a.CreatedAt), ApplicationFormData: form,
		Partner: ApplicationPartner{ID: p.ID, Name: p.Name, CompanyName: p.CompanyName, Email: &email, Image: p.Image,
			Description: p.Description, Country: country, GroupID: a.GroupID, Status: models.EnrollmentPending,
			Website: a.Website, Youtube: a.Youtube, Twitter: a.Twitter, Linkedin: a.Linkedin, Instagram: a.Instagram, Tiktok: a.Tiktok}}
}
