package demo

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// What makes the demo look like a real program: people's names, and the
// tags and folders a team would make (setup.go creates them, and the
// program's rewards, so that partners' leads and sales earn commissions).

var (
	firstNames = []string{"Maya", "Liam", "Sofia", "Noah", "Aisha", "Lucas", "Elena", "Mateo", "Hana", "Oliver",
		"Priya", "Ethan", "Chloe", "Daniel", "Yuki", "Amara", "Leo", "Isabel", "Samuel", "Zara",
		"Jonas", "Fatima", "Diego", "Emma", "Kofi", "Nora", "Ravi", "Lena", "Omar", "Grace"}
	lastNames = []string{"Patel", "Nguyen", "García", "Müller", "Okafor", "Rossi", "Kim", "Johnson", "Silva", "Tanaka",
		"Novak", "Haddad", "Larsen", "Dubois", "Mensah", "Kowalski", "Reyes", "Schmidt", "Cohen", "Brooks",
		"Ivanova", "Costa", "Andersson", "Moreau", "Yilmaz", "Fischer", "Ortiz", "Walsh", "Sato", "Bauer"}
	mailDomains = []string{"gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me", "fastmail.com"}
	// demoTags are a marketing team's tags, one colour each.
	demoTags = []struct{ name, color string }{
		{"Newsletter", "blue"}, {"Social", "purple"}, {"Paid ads", "red"}, {"Partners", "green"}, {"Product launch", "yellow"},
	}
	demoFolders = []string{"Marketing", "Partners", "Product"}
)

// personName is the i-th of len(firstNames)×len(lastNames) distinct names,
// shuffled by offset so that runs with other seeds meet other people.
func personName(i, offset int) (first, last string) {
	n := len(firstNames) * len(lastNames)
	k := (i*7 + offset) % n // 7 is coprime with 900: distinct for i < n
	f := k % len(firstNames)
	// The surname also moves with the first name, so neighbours differ in
	// both; for a given first name this is still a bijection.
	return firstNames[f], lastNames[(k/len(firstNames)+11*f)%len(lastNames)]
}

// asciiLower keeps a name's letters for an e-mail address (García → garcia).
func asciiLower(s string) string {
	r := strings.NewReplacer("á", "a", "é", "e", "í", "i", "ó", "o", "ú", "u", "ü", "u", "ñ", "n", "ç", "c", "ø", "o", "å", "a", "ä", "a", "ö", "o")
	return strings.ToLower(r.Replace(s))
}

// customerIdentity is a customer's name and e-mail address.
func customerIdentity(rng *rand.Rand, i int) (name, email string) {
	first, last := personName(i, rng.IntN(900))
	email = fmt.Sprintf("%s.%s%d@%s", asciiLower(first), asciiLower(last), i%97, mailDomains[rng.IntN(len(mailDomains))])
	return first + " " + last, email
}
