package sample

func GeneratedByName() {
	_ = 1
	_ = 2
	_ = 3
}
