package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/internal/auth"
	"github.com/relinkhq/relink/internal/config"
	"github.com/relinkhq/relink/internal/workspaces"
	"github.com/relinkhq/relink/models"
)

type workspaceOut struct {
	Workspace struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Slug string `json:"slug"`
		Plan string `json:"plan"`
	} `json:"workspace"`
	APIKey string `json:"apiKey"`
}

func workspace(ctx context.Context, cfg *config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return usageError{"want: relink workspace create --name N --slug S [--plan P] [--owner-email E --owner-password P]"}
	}
	fs := newFlags("workspace create")
	name := fs.String("name", "", "workspace name")
	slug := fs.String("slug", "", "workspace slug (lowercase letters, digits, hyphens)")
	planName := fs.String("plan", "free", "plan: free, pro, business, advanced, enterprise")
	email := fs.String("owner-email", "", "email of the first admin (optional)")
	password := fs.String("owner-password", "", "password of the first admin (with --owner-email)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	if *name == "" || *slug == "" {
		return usageError{"--name and --slug are required"}
	}
	plan, err := models.ParsePlan(*planName)
	if err != nil {
		return usageError{"--plan: " + err.Error()}
	}
	in := models.NewWorkspace{Name: *name, Slug: *slug, Plan: plan}
	if (*email == "") != (*password == "") {
		return usageError{"--owner-email and --owner-password go together"}
	}
	if *email != "" {
		if !strings.Contains(*email, "@") {
			return usageError{fmt.Sprintf("--owner-email: %q is not an email address", *email)}
		}
		h, err := auth.HashPassword(*password)
		if err != nil {
			return usageError{"--owner-password: " + err.Error()}
		}
		in.OwnerEmail, in.OwnerPasswordHash = *email, h
	}
	db, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	created, err := (&workspaces.Service{DB: db, Now: time.Now}).Create(ctx, in)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) && ae.Code != apierr.InternalServerError {
			return errors.New(strings.TrimSuffix(ae.Message, "."))
		}
		return fmt.Errorf("create workspace: %w", err)
	}
	var out workspaceOut
	out.Workspace.ID = created.Workspace.PublicID()
	out.Workspace.Name = created.Workspace.Name
	out.Workspace.Slug = created.Workspace.Slug
	out.Workspace.Plan = string(created.Workspace.Plan)
	out.APIKey = created.APIKey
	enc := json.NewEncoder(stdout)
	return enc.Encode(out)
}
