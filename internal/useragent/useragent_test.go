package useragent

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		name, ua                    string
		device, browser, os, engine string
		bot                         bool
	}{
		{"iphone safari", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
			"Mobile", "Mobile Safari", "iOS", "WebKit", false},
		{"mac chrome", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
			"Desktop", "Chrome", "Mac OS", "Blink", false},
		{"windows firefox", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
			"Desktop", "Firefox", "Windows", "Gecko", false},
		{"android chrome", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
			"Mobile", "Chrome", "Android", "Blink", false},
		{"ipad", "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
			"Tablet", "Mobile Safari", "iOS", "WebKit", false},
		{"googlebot", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Desktop", "Googlebot", "Unknown", "Unknown", true},
		{"curl", "curl/8.5.0", "Desktop", "curl", "Unknown", "Unknown", true},
		{"empty", "", "Desktop", "Unknown", "Unknown", "Unknown", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Parse(tt.ua)
			if in.Device != tt.device || in.Browser != tt.browser || in.OS != tt.os || in.Engine != tt.engine || in.Bot != tt.bot {
				t.Errorf("Parse = device %q browser %q os %q engine %q bot %v; want %q %q %q %q %v",
					in.Device, in.Browser, in.OS, in.Engine, in.Bot, tt.device, tt.browser, tt.os, tt.engine, tt.bot)
			}
		})
	}
}

func TestIsBot(t *testing.T) {
	tests := []struct {
		name, ua string
		want     bool
	}{
		{"slack preview", "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", true},
		{"facebook", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", true},
		{"whatsapp", "WhatsApp/2.23.20.0", true},
		{"python", "python-requests/2.31", true},
		{"twitter", "Twitterbot/1.0", true},
		{"headless", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", true},
		{"chrome", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", false},
		{"pixel instagram exempt", "Mozilla/5.0 (Linux; Android 14; Pixel 7 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0 Mobile Safari/537.36 Instagram 321.0 Android (34/14; 420dpi; 1080x2400; Google/google; Pixel 7; panther; panther; en_US; 577210397)", false},
		{"google elsewhere still a bot", "Mozilla/5.0 Google/google GoogleOther", true},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsBot(tt.ua); got != tt.want {
				t.Errorf("IsBot(%q) = %v, want %v", tt.ua, got, tt.want)
			}
		})
	}
}

func BenchmarkIsBot(b *testing.B) {
	ua := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		IsBot(ua)
	}
}

func BenchmarkParse(b *testing.B) {
	ua := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Parse(ua)
	}
}
