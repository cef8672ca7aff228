CREATE SCHEMA sandbox;
CREATE FUNCTION sandbox.sandbox_key(value jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
      SELECT CASE WHEN value = 'true'::jsonb THEN '1'::jsonb WHEN value = 'false'::jsonb THEN '0'::jsonb WHEN value = 'null'::jsonb THEN NULL ELSE value END
    $$;
CREATE TABLE sandbox.records_customers (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_customers_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_customers_seq_seq OWNED BY sandbox.records_customers.seq;
CREATE TABLE sandbox.records_direct_debit_payments (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_direct_debit_payments_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_direct_debit_payments_seq_seq OWNED BY sandbox.records_direct_debit_payments.seq;
CREATE TABLE sandbox.records_disbursements (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_disbursements_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_disbursements_seq_seq OWNED BY sandbox.records_disbursements.seq;
CREATE TABLE sandbox.records_ewallet_payments (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_ewallet_payments_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_ewallet_payments_seq_seq OWNED BY sandbox.records_ewallet_payments.seq;
CREATE TABLE sandbox.records_fixed_payment_code_payments (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_fixed_payment_code_payments_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_fixed_payment_code_payments_seq_seq OWNED BY sandbox.records_fixed_payment_code_payments.seq;
CREATE TABLE sandbox.records_fixed_payment_codes (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_fixed_payment_codes_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_fixed_payment_codes_seq_seq OWNED BY sandbox.records_fixed_payment_codes.seq;
CREATE TABLE sandbox.records_fixed_virtual_account_payments (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_fixed_virtual_account_payments_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_fixed_virtual_account_payments_seq_seq OWNED BY sandbox.records_fixed_virtual_account_payments.seq;
CREATE TABLE sandbox.records_fixed_virtual_accounts (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_fixed_virtual_accounts_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_fixed_virtual_accounts_seq_seq OWNED BY sandbox.records_fixed_virtual_accounts.seq;
CREATE TABLE sandbox.records_linked_account_tokens (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_linked_account_tokens_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_linked_account_tokens_seq_seq OWNED BY sandbox.records_linked_account_tokens.seq;
CREATE TABLE sandbox.records_linked_accounts (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_linked_accounts_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_linked_accounts_seq_seq OWNED BY sandbox.records_linked_accounts.seq;
CREATE TABLE sandbox.records_payment_methods (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_payment_methods_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_payment_methods_seq_seq OWNED BY sandbox.records_payment_methods.seq;
CREATE TABLE sandbox.records_sandbox_balances (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_balances_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_balances_seq_seq OWNED BY sandbox.records_sandbox_balances.seq;
CREATE TABLE sandbox.records_sandbox_callback_deliveries (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_callback_deliveries_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_callback_deliveries_seq_seq OWNED BY sandbox.records_sandbox_callback_deliveries.seq;
CREATE TABLE sandbox.records_sandbox_clock (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_clock_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_clock_seq_seq OWNED BY sandbox.records_sandbox_clock.seq;
CREATE TABLE sandbox.records_sandbox_faults (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_faults_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_faults_seq_seq OWNED BY sandbox.records_sandbox_faults.seq;
CREATE TABLE sandbox.records_sandbox_idempotency_keys (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_idempotency_keys_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_idempotency_keys_seq_seq OWNED BY sandbox.records_sandbox_idempotency_keys.seq;
CREATE TABLE sandbox.records_sandbox_jobs (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_jobs_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_jobs_seq_seq OWNED BY sandbox.records_sandbox_jobs.seq;
CREATE TABLE sandbox.records_sandbox_listener_forwards (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_listener_forwards_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_listener_forwards_seq_seq OWNED BY sandbox.records_sandbox_listener_forwards.seq;
CREATE TABLE sandbox.records_sandbox_listeners (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_listeners_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_listeners_seq_seq OWNED BY sandbox.records_sandbox_listeners.seq;
CREATE TABLE sandbox.records_sandbox_progressions (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_progressions_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_progressions_seq_seq OWNED BY sandbox.records_sandbox_progressions.seq;
CREATE TABLE sandbox.records_sandbox_settings (
    seq bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    id text NOT NULL,
    data jsonb NOT NULL
);
CREATE SEQUENCE sandbox.records_sandbox_settings_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
ALTER SEQUENCE sandbox.records_sandbox_settings_seq_seq OWNED BY sandbox.records_sandbox_settings.seq;
CREATE TABLE sandbox.sandbox_store_migrations (
    version integer NOT NULL,
    description text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE ONLY sandbox.records_customers ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_customers_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_direct_debit_payments ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_direct_debit_payments_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_disbursements ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_disbursements_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_ewallet_payments ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_ewallet_payments_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_fixed_payment_code_payments ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_fixed_payment_code_payments_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_fixed_payment_codes ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_fixed_payment_codes_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_fixed_virtual_account_payments ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_fixed_virtual_account_payments_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_fixed_virtual_accounts ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_fixed_virtual_accounts_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_linked_account_tokens ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_linked_account_tokens_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_linked_accounts ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_linked_accounts_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_payment_methods ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_payment_methods_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_balances ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_balances_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_callback_deliveries ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_callback_deliveries_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_clock ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_clock_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_faults ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_faults_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_idempotency_keys ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_idempotency_keys_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_jobs ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_jobs_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_listener_forwards ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_listener_forwards_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_listeners ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_listeners_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_progressions ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_progressions_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_sandbox_settings ALTER COLUMN seq SET DEFAULT nextval('sandbox.records_sandbox_settings_seq_seq'::regclass);
ALTER TABLE ONLY sandbox.records_customers
    ADD CONSTRAINT records_customers_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_direct_debit_payments
    ADD CONSTRAINT records_direct_debit_payments_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_disbursements
    ADD CONSTRAINT records_disbursements_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_ewallet_payments
    ADD CONSTRAINT records_ewallet_payments_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_fixed_payment_code_payments
    ADD CONSTRAINT records_fixed_payment_code_payments_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_fixed_payment_codes
    ADD CONSTRAINT records_fixed_payment_codes_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_fixed_virtual_account_payments
    ADD CONSTRAINT records_fixed_virtual_account_payments_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_fixed_virtual_accounts
    ADD CONSTRAINT records_fixed_virtual_accounts_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_linked_account_tokens
    ADD CONSTRAINT records_linked_account_tokens_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_linked_accounts
    ADD CONSTRAINT records_linked_accounts_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_payment_methods
    ADD CONSTRAINT records_payment_methods_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_balances
    ADD CONSTRAINT records_sandbox_balances_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_callback_deliveries
    ADD CONSTRAINT records_sandbox_callback_deliveries_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_clock
    ADD CONSTRAINT records_sandbox_clock_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_faults
    ADD CONSTRAINT records_sandbox_faults_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_idempotency_keys
    ADD CONSTRAINT records_sandbox_idempotency_keys_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_jobs
    ADD CONSTRAINT records_sandbox_jobs_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_listener_forwards
    ADD CONSTRAINT records_sandbox_listener_forwards_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_listeners
    ADD CONSTRAINT records_sandbox_listeners_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_progressions
    ADD CONSTRAINT records_sandbox_progressions_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.records_sandbox_settings
    ADD CONSTRAINT records_sandbox_settings_pkey PRIMARY KEY (merchant_id, mode, id);
ALTER TABLE ONLY sandbox.sandbox_store_migrations
    ADD CONSTRAINT sandbox_store_migrations_pkey PRIMARY KEY (version);
CREATE UNIQUE INDEX customers__external_id__unique ON sandbox.records_customers USING btree (sandbox.sandbox_key((data -> 'external_id'::text)), merchant_id, mode);
CREATE INDEX customers__id ON sandbox.records_customers USING btree (id);
CREATE INDEX customers__scope_seq ON sandbox.records_customers USING btree (merchant_id, mode, seq);
CREATE INDEX direct_debit_payments__id ON sandbox.records_direct_debit_payments USING btree (id);
CREATE INDEX direct_debit_payments__reference_id__key ON sandbox.records_direct_debit_payments USING btree (sandbox.sandbox_key((data -> 'reference_id'::text)), merchant_id, mode, seq);
CREATE INDEX direct_debit_payments__scope_seq ON sandbox.records_direct_debit_payments USING btree (merchant_id, mode, seq);
CREATE INDEX disbursements__external_id__key ON sandbox.records_disbursements USING btree (sandbox.sandbox_key((data -> 'external_id'::text)), merchant_id, mode, seq);
CREATE INDEX disbursements__id ON sandbox.records_disbursements USING btree (id);
CREATE INDEX disbursements__scope_seq ON sandbox.records_disbursements USING btree (merchant_id, mode, seq);
CREATE UNIQUE INDEX ewallet_payments__external_id__unique ON sandbox.records_ewallet_payments USING btree (sandbox.sandbox_key((data -> 'external_id'::text)), merchant_id, mode);
CREATE INDEX ewallet_payments__id ON sandbox.records_ewallet_payments USING btree (id);
CREATE INDEX ewallet_payments__scope_seq ON sandbox.records_ewallet_payments USING btree (merchant_id, mode, seq);
CREATE INDEX fixed_payment_code_payments__fixed_payment_code_id__key ON sandbox.records_fixed_payment_code_payments USING btree (sandbox.sandbox_key((data -> 'fixed_payment_code_id'::text)), merchant_id, mode, seq);
CREATE INDEX fixed_payment_code_payments__id ON sandbox.records_fixed_payment_code_payments USING btree (id);
CREATE UNIQUE INDEX fixed_payment_code_payments__payment_id__unique ON sandbox.records_fixed_payment_code_payments USING btree (sandbox.sandbox_key((data -> 'payment_id'::text)), merchant_id, mode);
CREATE INDEX fixed_payment_code_payments__scope_seq ON sandbox.records_fixed_payment_code_payments USING btree (merchant_id, mode, seq);
CREATE UNIQUE INDEX fixed_payment_codes__code_key__unique ON sandbox.records_fixed_payment_codes USING btree (sandbox.sandbox_key((data -> 'code_key'::text)), merchant_id, mode);
CREATE INDEX fixed_payment_codes__id ON sandbox.records_fixed_payment_codes USING btree (id);
CREATE INDEX fixed_payment_codes__scope_seq ON sandbox.records_fixed_payment_codes USING btree (merchant_id, mode, seq);
CREATE INDEX fixed_virtual_account_payments__callback_virtual_accou_41e4e054 ON sandbox.records_fixed_virtual_account_payments USING btree (sandbox.sandbox_key((data -> 'callback_virtual_account_id'::text)), merchant_id, mode, seq);
CREATE INDEX fixed_virtual_account_payments__id ON sandbox.records_fixed_virtual_account_payments USING btree (id);
CREATE UNIQUE INDEX fixed_virtual_account_payments__payment_id__unique ON sandbox.records_fixed_virtual_account_payments USING btree (sandbox.sandbox_key((data -> 'payment_id'::text)), merchant_id, mode);
CREATE INDEX fixed_virtual_account_payments__scope_seq ON sandbox.records_fixed_virtual_account_payments USING btree (merchant_id, mode, seq);
CREATE INDEX fixed_virtual_accounts__id ON sandbox.records_fixed_virtual_accounts USING btree (id);
CREATE UNIQUE INDEX fixed_virtual_accounts__number_key__unique ON sandbox.records_fixed_virtual_accounts USING btree (sandbox.sandbox_key((data -> 'number_key'::text)), merchant_id, mode);
CREATE INDEX fixed_virtual_accounts__scope_seq ON sandbox.records_fixed_virtual_accounts USING btree (merchant_id, mode, seq);
CREATE INDEX linked_account_tokens__id ON sandbox.records_linked_account_tokens USING btree (id);
CREATE INDEX linked_account_tokens__scope_seq ON sandbox.records_linked_account_tokens USING btree (merchant_id, mode, seq);
CREATE INDEX linked_accounts__id ON sandbox.records_linked_accounts USING btree (id);
CREATE INDEX linked_accounts__scope_seq ON sandbox.records_linked_accounts USING btree (merchant_id, mode, seq);
CREATE INDEX linked_accounts__token_id__key ON sandbox.records_linked_accounts USING btree (sandbox.sandbox_key((data -> 'token_id'::text)), merchant_id, mode, seq);
CREATE UNIQUE INDEX payment_methods__active_linked_account_id__unique ON sandbox.records_payment_methods USING btree (sandbox.sandbox_key((data -> 'active_linked_account_id'::text)), merchant_id, mode);
CREATE INDEX payment_methods__customer_id__key ON sandbox.records_payment_methods USING btree (sandbox.sandbox_key((data -> 'customer_id'::text)), merchant_id, mode, seq);
CREATE INDEX payment_methods__id ON sandbox.records_payment_methods USING btree (id);
CREATE INDEX payment_methods__scope_seq ON sandbox.records_payment_methods USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_balances__id ON sandbox.records_sandbox_balances USING btree (id);
CREATE INDEX sandbox_balances__scope_seq ON sandbox.records_sandbox_balances USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_callback_deliveries__id ON sandbox.records_sandbox_callback_deliveries USING btree (id);
CREATE INDEX sandbox_callback_deliveries__scope_seq ON sandbox.records_sandbox_callback_deliveries USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_callback_deliveries__state__key ON sandbox.records_sandbox_callback_deliveries USING btree (sandbox.sandbox_key((data -> 'state'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_callback_deliveries__webhook__key ON sandbox.records_sandbox_callback_deliveries USING btree (sandbox.sandbox_key((data -> 'webhook'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_clock__id ON sandbox.records_sandbox_clock USING btree (id);
CREATE INDEX sandbox_clock__scope_seq ON sandbox.records_sandbox_clock USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_faults__armed__key ON sandbox.records_sandbox_faults USING btree (sandbox.sandbox_key((data -> 'armed'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_faults__id ON sandbox.records_sandbox_faults USING btree (id);
CREATE INDEX sandbox_faults__scope_seq ON sandbox.records_sandbox_faults USING btree (merchant_id, mode, seq);
CREATE UNIQUE INDEX sandbox_idempotency_keys__claim__unique ON sandbox.records_sandbox_idempotency_keys USING btree (sandbox.sandbox_key((data -> 'claim'::text)), merchant_id, mode);
CREATE INDEX sandbox_idempotency_keys__id ON sandbox.records_sandbox_idempotency_keys USING btree (id);
CREATE INDEX sandbox_idempotency_keys__scope_seq ON sandbox.records_sandbox_idempotency_keys USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_jobs__id ON sandbox.records_sandbox_jobs USING btree (id);
CREATE INDEX sandbox_jobs__run_at_ms__key ON sandbox.records_sandbox_jobs USING btree (sandbox.sandbox_key((data -> 'run_at_ms'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_jobs__scope_seq ON sandbox.records_sandbox_jobs USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_jobs__state__key ON sandbox.records_sandbox_jobs USING btree (sandbox.sandbox_key((data -> 'state'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_listener_forwards__id ON sandbox.records_sandbox_listener_forwards USING btree (id);
CREATE INDEX sandbox_listener_forwards__listener_id__key ON sandbox.records_sandbox_listener_forwards USING btree (sandbox.sandbox_key((data -> 'listener_id'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_listener_forwards__scope_seq ON sandbox.records_sandbox_listener_forwards USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_listeners__id ON sandbox.records_sandbox_listeners USING btree (id);
CREATE INDEX sandbox_listeners__scope_seq ON sandbox.records_sandbox_listeners USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_listeners__state__key ON sandbox.records_sandbox_listeners USING btree (sandbox.sandbox_key((data -> 'state'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_progressions__id ON sandbox.records_sandbox_progressions USING btree (id);
CREATE INDEX sandbox_progressions__scope_seq ON sandbox.records_sandbox_progressions USING btree (merchant_id, mode, seq);
CREATE INDEX sandbox_progressions__state__key ON sandbox.records_sandbox_progressions USING btree (sandbox.sandbox_key((data -> 'state'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_settings__id ON sandbox.records_sandbox_settings USING btree (id);
CREATE INDEX sandbox_settings__kind__key ON sandbox.records_sandbox_settings USING btree (sandbox.sandbox_key((data -> 'kind'::text)), merchant_id, mode, seq);
CREATE INDEX sandbox_settings__scope_seq ON sandbox.records_sandbox_settings USING btree (merchant_id, mode, seq);
