import { performance } from 'node:perf_hooks';
import type { Campaign, Election, Lease } from 'etcd3';
import type { Leadership } from '../store.js';
import { toStoreError } from './etcd-errors.js';

/** Wait before campaigning again after the session was lost. */
const RECAMPAIGN_MS = 1_000;

/**
 * One candidacy in an etcd election (etcd3's Campaign). It rejoins by itself after losing its
 * session, and steps down as soon as its session may have expired, not when etcd3 finally says so.
 */
export class EtcdLeadership implements Leadership {
  readonly #election: Election;
  readonly #candidate: string;
  readonly #ttlMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #listeners = new Set<(isLeader: boolean) => void>();
  #campaign: Campaign | undefined;
  #isLeader = false;
  #resigned = false;
  #lastRenewal = 0;
  #fence: NodeJS.Timeout | undefined;
  #retry: NodeJS.Timeout | undefined;

  readonly #onResign: () => void;

  constructor(
    election: Election,
    candidate: string,
    ttlSeconds: number,
    onError: (error: unknown) => void,
    onResign: () => void = () => undefined,
  ) {
    this.#onResign = onResign;
    this.#election = election;
    this.#candidate = candidate;
    this.#ttlMs = ttlSeconds * 1000;
    this.#onError = onError;
  }

  get isLeader(): boolean {
    return this.#isLeader;
  }

  onChange(listener: (isLeader: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Joins the election; resolves once this candidate either leads or waits in line. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const campaign = this.#join();
      campaign.once('elected', () => resolve());
      // etcd3 announces that the candidate is queued behind an earlier one with this event.
      campaign.once('_isWaiting', () => resolve());
      campaign.once('error', (error: unknown) => {
        // A candidacy that never started is over: the caller gets the error, nothing retries.
        this.#resigned = true;
        clearTimeout(this.#retry);
        reject(toStoreError(error, 'campaign'));
      });
    });
  }

  async resign(): Promise<void> {
    if (this.#resigned) return;
    this.#resigned = true;
    this.#onResign();
    clearTimeout(this.#retry);
    clearInterval(this.#fence);
    this.#set(false);
    await this.#campaign?.resign().catch((error: unknown) => this.#onError(toStoreError(error, 'resign')));
  }

  #join(): Campaign {
    const campaign = this.#election.campaign(this.#candidate);
    this.#campaign = campaign;
    this.#lastRenewal = performance.now();
    // etcd3 keeps the session lease private; its renewals tell us how fresh our claim is.
    (campaign as unknown as { lease?: Lease }).lease?.on('keepaliveSucceeded', () => {
      this.#lastRenewal = performance.now();
    });
    campaign.on('elected', () => {
      if (this.#campaign !== campaign || this.#resigned) return;
      this.#set(true);
      this.#fence ??= setInterval(() => this.#checkFence(), Math.max(100, this.#ttlMs / 6)).unref();
    });
    campaign.on('error', (error: unknown) => this.#lost(campaign, error));
    return campaign;
  }

  #checkFence(): void {
    // Others may take over ttl after the server's last renewal; step down with a margin before that.
    if (this.#isLeader && performance.now() - this.#lastRenewal >= this.#ttlMs * 0.8) {
      const campaign = this.#campaign;
      if (campaign !== undefined)
        this.#lost(campaign, new Error('election session not renewed within its TTL'));
    }
  }

  #lost(campaign: Campaign, error: unknown): void {
    if (this.#campaign !== campaign || this.#resigned) return;
    this.#campaign = undefined;
    this.#set(false);
    this.#onError(toStoreError(error, 'election session'));
    campaign.resign().catch(() => undefined);
    this.#retry = setTimeout(() => {
      if (!this.#resigned) this.#join();
    }, RECAMPAIGN_MS).unref();
  }

  #set(isLeader: boolean): void {
    if (this.#isLeader === isLeader) return;
    this.#isLeader = isLeader;
    for (const listener of this.#listeners) {
      try {
        listener(isLeader);
      } catch (error) {
        this.#onError(error);
      }
    }
  }
}
