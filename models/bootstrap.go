package models

import (
	"context"
)

// NewWorkspace is what `relink workspace create` asks for.
type NewWorkspace struct {
	Name, Slug        string
	Plan              Plan
	OwnerEmail        string // optional
	OwnerPasswordHash string // required with OwnerEmail
	KeyName           string // name of the first API key
}

// Created is a new workspace with its first API key (plaintext, shown once).
type Created struct {
	Workspace *Workspace
	Owner     *User
	APIKey    string
}

// CreateWorkspaceWithKey creates a workspace, its default partner program,
// its owner (if given) and its first API key in one transaction.
func (db *DB) CreateWorkspaceWithKey(ctx context.Context, in NewWorkspace) (*Created, error) {
	out := &Created{}
	err := db.Tx(ctx, func(tx *DB) error {
		w, err := tx.CreateWorkspace(ctx, in.Name, in.Slug, in.Plan)
		if err != nil {
			return err
		}
		out.Workspace = w
		// Every workspace has a default program with a default group
		// (spec/partners-and-embed.md §0.2, §3.1).
		if _, _, err := tx.CreateDefaultProgram(ctx, w); err != nil {
			return err
		}
		var ownerID *string
		if in.OwnerEmail != "" {
			u, err := tx.UserByEmail(ctx, in.OwnerEmail)
			if IsNotFound(err) {
				u, err = tx.CreateUser(ctx, in.OwnerEmail, in.OwnerPasswordHash)
			}
			if err != nil {
				return err
			}
			if err := tx.AddMember(ctx, w.ID, u.ID, RoleOwner); err != nil {
				return err
			}
			out.Owner, ownerID = u, &u.ID
		}
		name := in.KeyName
		if name == "" {
			name = "Default key"
		}
		_, token, err := tx.CreateAPIKey(ctx, w.ID, name, ownerID)
		if err != nil {
			return err
		}
		out.APIKey = token
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
