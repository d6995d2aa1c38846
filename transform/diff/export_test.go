package diff

// WithHeldBudget is o with the budget of A's objects held at once set to
// n bytes, so that a test can make the diff take more rounds.
func WithHeldBudget(o Options, n int) Options {
	o.heldBudget = n
	return o
}
