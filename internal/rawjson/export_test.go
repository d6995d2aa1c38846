package rawjson

// The scans without validation, for the tests that hold them to
// encoding/json on any input: the product reads lists only with the
// validating scans, which share their code.

// EachMemberReading is EachMemberReadingValid without the validation.
func EachMemberReading(obj []byte, read func(m Member) int, fn func(m Member) bool) {
	members(obj, skipSpace(obj, 0), 0, read, fn, unchecked)
}

// EachElementMembers is EachElementMembersValid without the validation:
// it returns the index just past the array, or -1 if arr does not hold a
// valid one.
func EachElementMembers(arr []byte, fn func(elem []byte, members []Member)) int {
	return eachElement(arr, true, fn, unchecked)
}
