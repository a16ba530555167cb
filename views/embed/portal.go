package embed

// PortalPath is the partner portal's root on the app origin (issue 36).
const PortalPath = "/partners"

// PortalProgramPath is an enrollment's dashboard in the portal; its
// fragments are under PortalProgramPath(id) + "/fragments".
func PortalProgramPath(enrollmentID string) string {
	return PortalPath + "/programs/" + enrollmentID
}

// SignInForm is the portal's sign-in page.
type SignInForm struct {
	CSRF  string
	Email string
	Error string
	Sent  bool // the link was sent (or would have been): the one answer
}

// ConfirmView is the page a sign-in link opens.
type ConfirmView struct {
	Token, CSRF string
	Usable      bool
}

// PortalProgram is one enrollment in the portal's list and switch.
type PortalProgram struct {
	ID, Href, Program, Workspace, Status string
	ProgramID                            string // prog_…, for the partner-profile API
}

// PortalView is what the portal's pages show around the dashboard.
type PortalView struct {
	Email    string
	CSRF     string
	Programs []PortalProgram
	Current  string // the enrollment shown; "" on the list
	Tokens   int64  // the address's API tokens
	NewToken string // a token just made, shown once
}
