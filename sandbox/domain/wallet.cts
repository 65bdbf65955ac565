import type { LedgerKind, OrderPricing, WalletRecord } from '../types.cts';
import type { World } from '../world.cts';

/** 1000 credits = 1 USD (the spec's credit rate). */
export const CREDITS_PER_USD = 1000;

export function usdToCredits(usd: number): number {
	return Math.round(usd * CREDITS_PER_USD);
}

export function creditsToUsd(credits: number): number {
	return credits / CREDITS_PER_USD;
}

/** The human-review portion of an order's price: level 1 price minus level 0 price. */
export function reviewCostCredits(pricing: OrderPricing): number {
	return usdToCredits(pricing.level1Usd) - usdToCredits(pricing.level0Usd);
}

/** Provider runs (consumption lines) spend through here. */
export function spendCredits(world: World, credits: number): void {
	const wallet = world.state.wallet;
	wallet.usedCredits += credits;
	wallet.lastSyncAt = world.clock.nowIso();
}

/** Spends (positive) or refunds (negative) credits that are not a provider run, and records why. */
export function recordLedger(world: World, kind: LedgerKind, orderId: string, credits: number): void {
	world.state.wallet.ledger.push({ at: world.clock.nowIso(), kind, orderId, credits });
	spendCredits(world, credits);
}

/** GET /integration/credits (field names from the public SDKs). */
export function walletView(wallet: WalletRecord) {
	const remainingCredits = wallet.totalCredits - wallet.usedCredits;
	return {
		totalCredits: wallet.totalCredits,
		remainingCredits,
		usedCredits: wallet.usedCredits,
		currency: 'USD',
		creditsPerUsd: CREDITS_PER_USD,
		totalUsd: creditsToUsd(wallet.totalCredits),
		remainingUsd: creditsToUsd(remainingCredits),
		usedUsd: creditsToUsd(wallet.usedCredits),
		lastSyncDate: wallet.lastSyncAt,
	};
}
