package console

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/console/route"
	"github.com/relinkhq/relink/handlers/render"
	"github.com/relinkhq/relink/internal/ids"
	"github.com/relinkhq/relink/internal/importer"
	"github.com/relinkhq/relink/internal/netguard"
	vc "github.com/relinkhq/relink/views/console"
)

func (h *Handlers) importView(c *fiber.Ctx) vc.ImportView {
	ws := viewer(c).Workspace
	v := vc.ImportView{CSRF: session(c).CSRF, Slug: ws.Slug, Progress: h.imports.view(ws.ID), Source: c.FormValue("source")}
	for _, name := range importer.SourceNames() {
		s := importer.Sources[name]
		v.Sources = append(v.Sources, vc.ImportSource{Name: name, Label: s.Label, DefaultBase: s.DefaultBase})
	}
	return v
}

// Import shows the upload form and the last run of the workspace.
func (h *Handlers) Import(c *fiber.Ctx) error {
	return h.page(c, fiber.StatusOK, "Import links", "import", vc.Import(h.importView(c)))
}

// ImportProgress is the progress fragment htmx polls.
func (h *Handlers) ImportProgress(c *fiber.Ctx) error {
	return render.Component(c, fiber.StatusOK, vc.ImportProgress(h.imports.view(viewer(c).Workspace.ID)))
}

func (h *Handlers) importError(c *fiber.Ctx, status int, msg string) error {
	v := h.importView(c)
	v.Error = msg
	return h.page(c, status, "Import links", "import", vc.Import(v))
}

// importRefused answers a run that did not start: the progress fragment
// with the reason for htmx, the page otherwise.
func (h *Handlers) importRefused(c *fiber.Ctx, status int, msg string) error {
	if render.IsHTMX(c) {
		return render.Component(c, status, vc.ImportProgress(vc.ImportProgressView{Started: true, State: "failed", Title: "Import not started", Error: msg, TotalText: "?"}))
	}
	return h.importError(c, status, msg)
}

// UploadImport reads the CSV and shows the mapping step, each field's
// column guessed from the header.
func (h *Handlers) UploadImport(c *fiber.Ctx) error {
	fh, err := c.FormFile("file")
	if err != nil {
		return h.importError(c, fiber.StatusUnprocessableEntity, "Choose a CSV file to upload.")
	}
	f, err := fh.Open()
	if err != nil {
		return fmt.Errorf("open uploaded CSV: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, importer.MaxCSVBytes+1))
	if err != nil {
		return fmt.Errorf("read uploaded CSV: %w", err)
	}
	if len(data) > importer.MaxCSVBytes {
		return h.importError(c, fiber.StatusRequestEntityTooLarge, fmt.Sprintf("The file is larger than %d MB.", importer.MaxCSVBytes>>20))
	}
	headers, err := importer.ReadHeaders(data)
	if err != nil {
		return h.importError(c, fiber.StatusUnprocessableEntity, "This file cannot be read as CSV: "+err.Error())
	}
	headers = append([]string(nil), headers...)
	preview, rows, err := importer.Preview(data, 1)
	if err != nil {
		return h.importError(c, fiber.StatusUnprocessableEntity, "This file cannot be read as CSV: "+err.Error())
	}
	var first []string
	if len(preview) > 0 {
		first = preview[0]
	}
	guess := importer.Mapping{}.Guess(headers)
	ws := viewer(c).Workspace
	st := h.imports.get(ws.ID)
	upload := ids.New("imp_")
	h.imports.mu.Lock()
	st.upload, st.fileName, st.data = upload, fh.Filename, data
	h.imports.mu.Unlock()
	v := h.importView(c)
	v.Mapping, v.Upload, v.FileName, v.Rows = true, upload, fh.Filename, rows
	for _, fd := range importer.Fields {
		row := vc.ImportField{Name: fd.Name, Label: fd.Label, Required: fd.Required}
		if !fd.Required {
			row.Options = append(row.Options, vc.Option{Value: "", Label: "None"})
		}
		for i, hd := range headers {
			sel := guess[fd.Name] == hd
			row.Options = append(row.Options, vc.Option{Value: hd, Label: hd, Selected: sel})
			if sel && i < len(first) {
				row.Example = first[i]
			}
		}
		v.Fields = append(v.Fields, row)
	}
	return h.page(c, fiber.StatusOK, "Import links", "import", vc.Import(v))
}

// RunImport starts the import of the uploaded CSV with the chosen mapping
// in the background and answers with the progress fragment.
func (h *Handlers) RunImport(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	st := h.imports.get(ws.ID)
	h.imports.mu.Lock()
	data, upload, running := st.data, st.upload, st.running
	h.imports.mu.Unlock()
	fail := func(status int, msg string) error { return h.importRefused(c, status, msg) }
	switch {
	case running:
		return fail(fiber.StatusConflict, "An import is already running in this workspace.")
	case data == nil || c.FormValue("upload") != upload:
		return fail(fiber.StatusUnprocessableEntity, "Upload the CSV file again: this upload is no longer available.")
	}
	m := importer.Mapping{}
	for _, f := range importer.Fields {
		// Cloned: fiber's values live in the request's buffer, and the
		// import outlives the request.
		m[f.Name] = strings.Clone(c.FormValue("map_" + f.Name))
	}
	src, err := importer.NewCSV(data, m)
	if err != nil {
		return fail(fiber.StatusUnprocessableEntity, err.Error())
	}
	h.imports.mu.Lock()
	st.data, st.upload = nil, ""
	h.imports.mu.Unlock()
	return h.startImport(c, st, "CSV file", src)
}

// startImport runs src in the background for the viewer's workspace (the
// caller has checked that none runs) and answers with the progress
// fragment, or a redirect to the import page without htmx.
func (h *Handlers) startImport(c *fiber.Ctx, st *importState, label string, src importer.Source) error {
	vw := viewer(c)
	ws := vw.Workspace
	h.imports.mu.Lock()
	st.source = label
	st.started, st.running, st.err, st.report = true, true, nil, nil
	st.progress = importer.Progress{}
	if sized, ok := src.(importer.Sized); ok {
		st.progress.Total = sized.Total()
	}
	h.imports.mu.Unlock()
	userID := vw.User.ID
	r := &importer.Runner{Links: h.Deps.Links, Workspace: ws, UserID: &userID, Progress: func(p importer.Progress) {
		h.imports.mu.Lock()
		st.progress = p
		h.imports.mu.Unlock()
	}}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), importTimeout)
		defer cancel()
		rep, err := r.Run(ctx, src)
		if err != nil {
			h.Logger.Error("console import failed", "workspace", ws.ID, "source", label, "err", err)
		} else {
			h.Logger.Info("console import finished", "workspace", ws.ID, "source", label, "created", rep.Created,
				"skipped", rep.Skipped, "failed", rep.Failed, "clicks", rep.Clicks)
		}
		h.imports.mu.Lock()
		st.running, st.report, st.err, st.progress = false, rep, err, rep.Progress
		h.imports.mu.Unlock()
	}()
	if render.IsHTMX(c) {
		return render.Component(c, fiber.StatusAccepted, vc.ImportProgress(h.imports.view(ws.ID)))
	}
	return redirect(c, route.URL(route.Import))
}

// RunAPIImport starts an import from another service's API (Bitly,
// Rebrandly, Short.io, Shlink, YOURLS, Kutt, Dub) with the token and base
// URL from the form, as `relink import SOURCE` takes them, in the
// background. The token is held by the run only: it is not stored, logged
// or shown again, and the source's errors have it cut out.
func (h *Handlers) RunAPIImport(c *fiber.Ctx) error {
	ws := viewer(c).Workspace
	st := h.imports.get(ws.ID)
	h.imports.mu.Lock()
	running := st.running
	h.imports.mu.Unlock()
	if running {
		return h.importRefused(c, fiber.StatusConflict, "An import is already running in this workspace.")
	}
	name := c.FormValue("source")
	s, ok := importer.Sources[name]
	if !ok {
		return h.importRefused(c, fiber.StatusUnprocessableEntity, "Choose the service to import from.")
	}
	// Cloned: fiber's values live in the request's buffer, and the import
	// outlives the request.
	o := importer.APIOptions{Token: strings.Clone(strings.TrimSpace(c.FormValue("token"))),
		BaseURL: strings.Clone(strings.TrimSpace(c.FormValue("base_url"))), NoClicks: c.FormValue("clicks") != "on",
		Client: h.importClient()}
	src, err := importer.NewSource(name, o)
	if err != nil {
		return h.importRefused(c, fiber.StatusUnprocessableEntity, err.Error()+".")
	}
	return h.startImport(c, st, s.Label, src)
}

// importClient makes the API sources' requests: public addresses only
// unless RELINK_IMPORT_TARGETS=any (a base URL typed in the console must
// not make the server reach its own network), no proxy, 30 s a request.
func (h *Handlers) importClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	if h.Config.ImportTargets != "any" {
		dialer.Control = netguard.PublicOnly
	}
	return &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{DialContext: dialer.DialContext, Proxy: nil, TLSHandshakeTimeout: 10 * time.Second}}
}
