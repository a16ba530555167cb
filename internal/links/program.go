package links

import (
	"context"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// msgProgramNotFound is Dub's answer (process-link.ts) for a programId that
// is not a program of the workspace.
const msgProgramNotFound = "Program not found."

// programRefs are a link's program, partner and folder once checked.
type programRefs struct {
	programID, partnerID, folderID *string
}

// checkProgram keeps a link's programId and partnerId in its workspace
// (spec/links.md §4.6): a programId must be the workspace's program (404
// "Program not found." as Dub), a partnerId must be enrolled in it (404
// "Partner not found."; Dub's partners are global, Relink's belong to a
// workspace). With a programId, a tenantId and no partnerId the partner is
// the program's enrollment with that tenant, and a link without a folder
// gets the program's default folder. Values the link already has are not
// checked again (an update that leaves them alone).
func (s *Service) checkProgram(ctx context.Context, ws *models.Workspace, in *Input, folderID *string, old *models.Link) (programRefs, error) {
	r := programRefs{programID: in.ProgramID.Ptr(), partnerID: in.PartnerID.Ptr(), folderID: folderID}
	if r.partnerID != nil && *r.partnerID == "" {
		r.partnerID = nil
	}
	progChanged := r.programID != nil && *r.programID != "" && (old == nil || !sameRef(old.ProgramID, r.programID))
	partChanged := r.partnerID != nil && (old == nil || !sameRef(old.PartnerID, r.partnerID))
	if !progChanged && !partChanged {
		return r, nil
	}
	prog, err := s.DB.DefaultProgram(ctx, ws.ID)
	if err != nil && !apierr.Is(err, apierr.NotFound) {
		return r, err
	}
	if progChanged {
		if prog == nil || prog.ID != *r.programID {
			return r, apierr.New(apierr.NotFound, msgProgramNotFound)
		}
		if r.partnerID == nil && in.TenantID.Value != "" {
			if e, err := s.DB.EnrollmentByTenant(ctx, ws.ID, prog.ID, in.TenantID.Value); err == nil {
				r.partnerID = &e.PartnerID
				partChanged = false
			} else if !apierr.Is(err, apierr.NotFound) {
				return r, err
			}
		}
		if r.folderID == nil && prog.DefaultFolderID != nil && *prog.DefaultFolderID != "" {
			r.folderID = prog.DefaultFolderID
		}
	}
	if partChanged {
		if prog == nil {
			return r, apierr.New(apierr.NotFound, models.MsgPartnerNotEnrolled)
		}
		if _, err := s.DB.EnrollmentByPartner(ctx, ws.ID, prog.ID, *r.partnerID); err != nil {
			return r, err
		}
	}
	return r, nil
}

func sameRef(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}
