package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/pact-registry/pact/server/registry"
)

// publicFault is a database fault the caller can do nothing about but
// retry later: it reads as a *registry.Error (Unavailable or
// InsufficientStorage, so the server answers 503 or 507 with a safe message)
// and still carries the driver's error for the logs.
type publicFault struct {
	public *registry.Error
	cause  error
}

func (e *publicFault) Error() string   { return e.public.Message + ": " + e.cause.Error() }
func (e *publicFault) Unwrap() []error { return []error{e.public, e.cause} }

// fault turns a driver error into what the Store returns: *registry.Error
// values pass through, a full disk becomes InsufficientStorage, connection
// failures and timeouts become Unavailable (registry.ErrStoreUnreachable when
// the database cannot be reached, which the store logs once per outage),
// anything else is an internal error whose text names the operation.
func (s *Store) fault(op string, err error) error {
	if err == nil {
		return nil
	}
	var rerr *registry.Error
	if errors.As(err, &rerr) {
		return err
	}
	switch {
	case s.dialect.isOutOfStorage(err):
		return &publicFault{
			public: registry.Errorf(registry.InsufficientStorage, "the server is out of storage space: nothing was saved; try again later"),
			cause:  fmt.Errorf("sqlstore: %s: %w", op, err),
		}
	case errors.Is(err, context.DeadlineExceeded), s.dialect.isTimeout(err):
		return &publicFault{
			public: registry.Errorf(registry.Unavailable, "the database did not answer in time"),
			cause:  fmt.Errorf("sqlstore: %s: %w", op, err),
		}
	case s.dialect.isUnreachable(err):
		cause := fmt.Errorf("sqlstore: %s: %w", op, err)
		if s.outage != nil {
			s.unreachable(cause)
		}
		return &publicFault{public: registry.ErrStoreUnreachable, cause: cause}
	case s.dialect.isUnavailable(err):
		return &publicFault{
			public: registry.Errorf(registry.Unavailable, "the database is unavailable"),
			cause:  fmt.Errorf("sqlstore: %s: %w", op, err),
		}
	}
	return fmt.Errorf("sqlstore: %s: %w", op, err)
}

func notFound(format string, args ...any) error {
	return registry.Errorf(registry.NotFound, format, args...)
}

func conflict(format string, args ...any) error {
	return registry.Errorf(registry.Conflict, format, args...)
}

// errNoRows reports whether err means a query found nothing.
func errNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// invalid builds an Invalid error; used for caller mistakes.
func invalid(format string, args ...any) error {
	return registry.Errorf(registry.Invalid, format, args...)
}

// insertFault is what an insert's err means to the domain: NotFound when
// accountID, the account the row belongs to, does not exist; Conflict,
// said with format and args, when a unique column's value is taken;
// otherwise err as it is.
func (t *txn) insertFault(err error, accountID int64, format string, args ...any) error {
	switch {
	case err == nil:
		return nil
	case t.s.dialect.isForeignKeyViolation(err):
		return notFound("no such account %d", accountID)
	case t.s.dialect.isUniqueViolation(err):
		return conflict(format, args...)
	}
	return err
}
