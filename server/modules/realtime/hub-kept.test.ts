// The events the hub keeps for resumes: bounded by count and bytes, the oldest dropped first,
// the rest found where a resume looks for them (also once dropped ones were cut off in bulk).
import { describe, expect, it } from 'vitest';
import type { BusEvent } from '../../core/bus.js';
import { Hub, RESUME_MAX_BYTES, RESUME_MAX_EVENTS } from './hub.js';

const message = (i: number, text = 'hi'): BusEvent => ({
  id: `evt_${i}`, type: 'message.created', app: 'w1', timestamp: new Date().toISOString(), data: { channelId: 'c1', text },
});

describe('kept events', () => {
  it('keeps the newest RESUME_MAX_EVENTS, in order, and forgets the older ones', () => {
    const hub = new Hub(1 << 20);
    const extra = 2_500; // more than one bulk cut of the dropped entries
    for (let i = 0; i < RESUME_MAX_EVENTS + extra; i++) hub.dispatch(message(i));
    expect(hub.resumePoint('w1', 'evt_0')).toBe(-1);
    expect(hub.resumePoint('w1', `evt_${extra - 1}`)).toBe(-1);
    expect(hub.resumePoint('w1', `evt_${extra}`)).toBe(0);
    expect(hub.resumePoint('w1', `evt_${RESUME_MAX_EVENTS + extra - 1}`)).toBe(RESUME_MAX_EVENTS - 1);
    // Further events move the window one by one.
    hub.dispatch(message(RESUME_MAX_EVENTS + extra));
    expect(hub.resumePoint('w1', `evt_${extra}`)).toBe(-1);
    expect(hub.resumePoint('w1', `evt_${extra + 1}`)).toBe(0);
    expect(hub.resumePoint('w1', `evt_${RESUME_MAX_EVENTS + extra}`)).toBe(RESUME_MAX_EVENTS - 1);
  });

  it('keeps at most RESUME_MAX_BYTES of frames, and always the newest event', () => {
    const hub = new Hub(1 << 20);
    const big = 'x'.repeat(100_000);
    const n = Math.ceil(RESUME_MAX_BYTES / 100_000) + 20;
    for (let i = 0; i < n; i++) hub.dispatch(message(i, big));
    const kept = Array.from({ length: n }, (_, i) => hub.resumePoint('w1', `evt_${i}`)).filter((p) => p >= 0);
    expect(kept.length).toBeLessThan(RESUME_MAX_BYTES / 100_000);
    expect(kept.length).toBeGreaterThan(RESUME_MAX_BYTES / 100_000 - 5);
    expect(kept).toEqual(kept.map((_, i) => i)); // the newest ones, oldest first
    expect(hub.resumePoint('w1', `evt_${n - 1}`)).toBe(kept.length - 1);
    hub.dispatch(message(n, 'x'.repeat(RESUME_MAX_BYTES + 1)));
    expect(hub.resumePoint('w1', `evt_${n}`)).toBe(0);
    expect(hub.resumePoint('w1', `evt_${n - 1}`)).toBe(-1);
  });
});
