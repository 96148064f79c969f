package registry

// SetPasswordChecker replaces the service's password check, so tests can
// count the hashing work a request costs.
func (s *Service) SetPasswordChecker(check func(encoded, password string) bool) {
	s.checkPassword = check
}
