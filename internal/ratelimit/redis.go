package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a limiter shared by every instance using the same Redis.
type Redis struct {
	client *redis.Client
	prefix string
}

// NewRedis returns a Redis-backed limiter; keys are stored under prefix.
func NewRedis(client *redis.Client, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// The script reads the previous window, estimates usage with the server's
// clock (so instances with skewed clocks agree) and increments the current
// window only when the request is allowed.
var slidingWindow = redis.NewScript(`
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local windowMs = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local idx = math.floor(nowMs / windowMs)
local currKey = KEYS[1] .. ':' .. idx
local prevKey = KEYS[1] .. ':' .. (idx - 1)
local curr = tonumber(redis.call('GET', currKey) or '0')
local prev = tonumber(redis.call('GET', prevKey) or '0')
local elapsed = nowMs - idx * windowMs
local used = prev * (1 - elapsed / windowMs) + curr
local reset = (idx + 1) * windowMs
if used + 1 > limit then
  return {0, tostring(used), reset}
end
redis.call('INCR', currKey)
redis.call('PEXPIRE', currKey, windowMs * 2 + 1000)
return {1, tostring(used + 1), reset}
`)

// Allow implements Limiter.
func (r *Redis) Allow(ctx context.Context, key string, limit int, window time.Duration) (Result, error) {
	res, err := slidingWindow.Run(ctx, r.client, []string{r.prefix + key}, window.Milliseconds(), limit).Slice()
	if err != nil {
		return Result{}, fmt.Errorf("rate limit: redis: %w", err)
	}
	if len(res) != 3 {
		return Result{}, fmt.Errorf("rate limit: redis: unexpected reply %v", res)
	}
	allowed, _ := res[0].(int64)
	usedStr, _ := res[1].(string)
	used, _ := strconv.ParseFloat(usedStr, 64)
	resetMs, _ := res[2].(int64)
	return Result{
		Allowed: allowed == 1, Limit: limit, Remaining: remaining(limit, used),
		Reset: time.UnixMilli(resetMs),
	}, nil
}
