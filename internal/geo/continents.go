package geo

import "strings"

// continentOf maps ISO 3166-1 alpha-2 country codes to continent codes
// (AF AN AS EU NA OC SA), following GeoNames' assignment.
var continentOf = func() map[string]string {
	byContinent := map[string]string{
		"AF": `AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR
			MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW`,
		"AN": `AQ BV GS HM TF`,
		"AS": `AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM
			MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE`,
		"EU": `AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV
			MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK`,
		"NA": `AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM
			PR SV SX TC TT US VC VG VI`,
		"OC": `AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS`,
		"SA": `AR BO BR CL CO EC FK GF GY PE PY SR UY VE`,
	}
	m := make(map[string]string, 260)
	for cont, list := range byContinent {
		for _, cc := range strings.Fields(list) {
			m[cc] = cont
		}
	}
	return m
}()

// Continent returns the continent code of an ISO-2 country code, or "" when
// the country is unknown (the value a click records, spec/links.md §11).
func Continent(country string) string { return continentOf[strings.ToUpper(country)] }

// euCountries are the EU member states: clicks from them store no IP
// (spec/links.md §11).
var euCountries = map[string]bool{}

func init() {
	for _, cc := range strings.Fields("AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE") {
		euCountries[cc] = true
	}
}

// InEU reports whether country is an EU member state.
func InEU(country string) bool { return euCountries[strings.ToUpper(country)] }
