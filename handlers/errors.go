package handlers

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/relinkhq/relink/handlers/request"
	"github.com/relinkhq/relink/internal/apierr"
	"github.com/relinkhq/relink/models"
)

// errorBody is the wire shape of every API error.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    apierr.Code `json:"code"`
	Message string      `json:"message"`
	DocURL  string      `json:"doc_url"`
}

// handleError is the one ErrorHandler: it maps any error to an *apierr.Error,
// logs 5xx with the request id, and renders JSON on the API face or an HTML
// page elsewhere.
func (s *Server) handleError(c *fiber.Ctx, err error) error {
	// fasthttp's own errors (a body over the limit, headers too large, a
	// malformed request) reach here without passing the dispatcher.
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	e := toAPIError(err, s.svc.Config.BodyLimit)
	if e.Code == apierr.InternalServerError && models.IsUnavailable(err) {
		e = apierr.Wrap(apierr.Unavailable, err, "The database is not answering right now. Please retry in a few seconds.")
	}
	if e.Code == apierr.Unavailable {
		// Delta-seconds, and milliseconds for the SDKs (spec/links.md §1.5).
		retry := max(1, int(s.dbTimeout()/time.Second))
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(retry))
		c.Set("retry-after-ms", strconv.Itoa(retry*1000))
		s.log.Warn("database unavailable", "request_id", request.RequestID(c), "path", request.OriginalPath(c), "err", err)
	}
	if e.Status() >= 500 {
		s.log.Error("request failed",
			"request_id", request.RequestID(c), "method", c.Method(), "path", request.OriginalPath(c), "err", err)
	}
	if request.FaceOf(c) == request.FaceAPI || request.FaceOf(c) == "" {
		return writeAPIError(c, e)
	}
	return s.renderErrorPage(c, err, e)
}

// writeAPIError writes the JSON error envelope.
func writeAPIError(c *fiber.Ctx, e *apierr.Error) error {
	return c.Status(e.Status()).JSON(errorBody{Error: errorDetail{Code: e.Code, Message: e.Message, DocURL: e.Doc()}})
}

// toAPIError converts Fiber's own errors (404, 405, 413, …) and anything else.
// A body over the limit is a 400 bad_request (the SDKs have a typed error for
// 400, none for 413) that names the limit.
func toAPIError(err error, bodyLimit int) *apierr.Error {
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusNotFound:
			return apierr.New(apierr.NotFound, "The requested endpoint does not exist.")
		case fiber.StatusMethodNotAllowed:
			return apierr.New(apierr.NotFound, "The requested endpoint does not exist for this method.")
		case fiber.StatusRequestEntityTooLarge:
			return apierr.Newf(apierr.BadRequest, "Request body is too large: the limit is %d bytes.", bodyLimit)
		case fiber.StatusBadRequest:
			return apierr.New(apierr.BadRequest, fe.Message)
		case fiber.StatusRequestTimeout:
			return apierr.New(apierr.BadRequest, "The request took too long to arrive.")
		}
		if fe.Code >= 500 {
			return apierr.Internal(err)
		}
		return apierr.New(apierr.BadRequest, fe.Message)
	}
	return apierr.As(err)
}

// recoverPanics turns a panic into a logged 500 without leaking internals.
func (s *Server) recoverPanics(c *fiber.Ctx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic serving request",
				"request_id", request.RequestID(c), "method", c.Method(), "path", request.OriginalPath(c),
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = apierr.Internal(fmt.Errorf("panic: %v", r))
		}
	}()
	return c.Next()
}

// apiNotFound answers any unmatched API route (after the key gate, see
// sealRoutes).
func (s *Server) apiNotFound(c *fiber.Ctx) error {
	return apierr.New(apierr.NotFound, "The requested endpoint does not exist.")
}
