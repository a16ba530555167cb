package sample

// T is a receiver.
type T struct{}

// Short has three lines.
func Short() {
}

func (t *T) Long() {
	_ = 1
	_ = 2
	_ = 3
}
