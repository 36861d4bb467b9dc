{{/* Helpers shared by every template. */}}

{{/* Prefix of every object name: fullnameOverride, else the release name. */}}
{{- define "edge.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- end }}

{{/* Name of one component's objects. Expects dict "root" "component". */}}
{{- define "edge.componentName" -}}
{{- printf "%s-%s" (include "edge.fullname" .root) .component -}}
{{- end }}

{{/* Labels that select one component's pods; never change them (selectors are immutable). */}}
{{- define "edge.selectorLabels" -}}
app.kubernetes.io/name: edge-controller
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Every label of a component's objects. Expects dict "root" "component". */}}
{{- define "edge.labels" -}}
{{ include "edge.selectorLabels" . }}
app.kubernetes.io/part-of: edge-controller
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end }}

{{/* One image per component: <repository>-<component>:<tag>, built from deploy/docker. */}}
{{- define "edge.image" -}}
{{- printf "%s-%s:%s" .root.Values.image.repository .component (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end }}

{{/* The Secret holding connection URLs and bootstrap secrets: existingSecret or the chart's own. */}}
{{- define "edge.secretName" -}}
{{- default (include "edge.fullname" .) .Values.secrets.existingSecret -}}
{{- end }}

{{- define "edge.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "edge.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end }}

{{/*
One variable from the Secret. Optional ones are left unset when the key is absent; a required
one keeps the pod from starting (CreateContainerConfigError naming the key) instead.
Expects dict "root" "key" "required".
*/}}
{{- define "edge.secretEnv" -}}
- name: {{ .key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "edge.secretName" .root }}
      key: {{ .key }}
      optional: {{ not .required }}
{{- end }}

{{/* The components that seal secrets at rest under the key-encryption key (@edge/key-encryption). */}}
{{- define "edge.sealsSecrets" -}}
{{- has .component (list "auth" "pki") -}}
{{- end }}

{{/*
The variables a component's containers (the migration init container too) take from the
Secret. Each process gets only what it uses: the gateway opens no database, only auth
bootstraps the admin. auth (MFA secrets) and pki (private keys) seal secrets under the
key-encryption key, which every replica of both must share; without it each pod would make its
own in its emptyDir, so it is required. Expects dict "root" "component".
*/}}
{{- define "edge.secretEnvs" -}}
{{- if ne .component "gateway" }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_DATABASE_URL") }}
{{- end }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_NATS_URL") }}
{{- if eq .component "auth" }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_ADMIN_PASSWORD") }}
{{- end }}
{{- if eq (include "edge.sealsSecrets" .) "true" }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_KEY_ENCRYPTION_KEY" "required" true) }}
{{- end }}
{{- end }}

{{/*
The join token of internal mutual TLS, for a component's main container when config.grpcTls is
mtls: every process obtains its certificate with it (the migration step makes no gRPC call).
Expects dict "root" "component".
*/}}
{{- define "edge.joinTokenEnv" -}}
{{- if eq .root.Values.config.grpcTls "mtls" }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_GRPC_JOIN_TOKEN" "required" true) }}
{{- end }}
{{- end }}

{{/*
A service's startup, readiness or liveness check: the kubelet's gRPC health probe, or under
mutual TLS, which the kubelet cannot speak, a TCP probe of the gRPC port (a service listens only
once it is ready, and stops listening when it stops). Expects dict "root" "port".
*/}}
{{- define "edge.grpcProbe" -}}
{{- if eq .root.Values.config.grpcTls "mtls" }}
tcpSocket:
  port: {{ .port }}
{{- else }}
grpc:
  port: {{ .port }}
{{- end }}
{{- end }}

{{/* True when the session pods mount the snapshot claim. Expects dict "root" "component". */}}
{{- define "edge.snapshotVolume" -}}
{{- and (eq .component "session") .root.Values.snapshots.persistence.enabled -}}
{{- end }}

{{/* The snapshot claim's name: existingClaim or the chart's own. Expects the root. */}}
{{- define "edge.snapshotClaim" -}}
{{- default (printf "%s-snapshots" (include "edge.fullname" .)) .Values.snapshots.persistence.existingClaim -}}
{{- end }}

{{/* Settings shared by a component's containers. Expects dict "root" "component". */}}
{{- define "edge.containerCommon" -}}
imagePullPolicy: {{ .root.Values.image.pullPolicy }}
envFrom:
  - configMapRef:
      name: {{ include "edge.fullname" .root }}
securityContext:
  {{- toYaml .root.Values.containerSecurityContext | nindent 2 }}
volumeMounts:
  - name: data
    mountPath: /data
  - name: tmp
    mountPath: /tmp
  {{- if eq (include "edge.snapshotVolume" .) "true" }}
  - name: snapshots
    mountPath: /data/snapshots
  {{- end }}
{{- end }}

{{/* Pod-level settings shared by every component. Expects dict "root" "component" "spec". */}}
{{- define "edge.podSpec" -}}
serviceAccountName: {{ include "edge.serviceAccountName" .root }}
automountServiceAccountToken: false
terminationGracePeriodSeconds: {{ .root.Values.terminationGracePeriodSeconds }}
securityContext:
  {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .spec.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .spec.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (include "edge.affinity" . | fromYaml) }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with (include "edge.topologySpread" . | fromYamlArray) }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: data
    {{- toYaml .root.Values.dataVolume | nindent 4 }}
  - name: tmp
    emptyDir:
      sizeLimit: 64Mi
  {{- if eq (include "edge.snapshotVolume" .) "true" }}
  - name: snapshots
    persistentVolumeClaim:
      claimName: {{ include "edge.snapshotClaim" .root }}
  {{- end }}
{{- end }}

{{/*
A component's affinity: its own, and for the session pods on a snapshot volume that only one
node can mount (no ReadWriteMany), a rule keeping them on one node. Expects dict "root"
"component" "spec".
*/}}
{{- define "edge.affinity" -}}
{{- $affinity := deepCopy .spec.affinity }}
{{- $p := .root.Values.snapshots.persistence }}
{{- if and (eq (include "edge.snapshotVolume" .) "true") (not (has "ReadWriteMany" $p.accessModes)) }}
{{- $term := dict "labelSelector" (dict "matchLabels" (include "edge.selectorLabels" . | fromYaml)) "topologyKey" "kubernetes.io/hostname" }}
{{- $podAffinity := default dict $affinity.podAffinity }}
{{- $_ := set $podAffinity "requiredDuringSchedulingIgnoredDuringExecution" (append (default list $podAffinity.requiredDuringSchedulingIgnoredDuringExecution) $term) }}
{{- $_ := set $affinity "podAffinity" $podAffinity }}
{{- end }}
{{- toYaml $affinity }}
{{- end }}

{{/*
A component's topologySpreadConstraints: its own when given, else the chart's topologySpread
with the component's pods as labelSelector. Expects dict "root" "component" "spec".
*/}}
{{- define "edge.topologySpread" -}}
{{- $constraints := .spec.topologySpreadConstraints }}
{{- if not $constraints }}
{{- $constraints = list }}
{{- $selector := dict "matchLabels" (include "edge.selectorLabels" . | fromYaml) }}
{{- range .root.Values.topologySpread }}
{{- $constraints = append $constraints (merge (dict "labelSelector" $selector) .) }}
{{- end }}
{{- end }}
{{- toYaml $constraints }}
{{- end }}

{{/*
Pod template metadata: selector labels, the prometheus.io scrape annotations when metrics are
on, and the component's own annotations. Expects dict "root" "component" "spec".
*/}}
{{- define "edge.podMetadata" -}}
{{- $scrape := and .root.Values.metrics.enabled .root.Values.metrics.podAnnotations }}
labels:
  {{- include "edge.selectorLabels" . | nindent 2 }}
{{- if or $scrape .spec.podAnnotations }}
annotations:
  {{- if $scrape }}
  prometheus.io/scrape: "true"
  prometheus.io/port: {{ .root.Values.metrics.port | quote }}
  prometheus.io/path: /metrics
  {{- end }}
  {{- with .spec.podAnnotations }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end }}
{{- end }}

{{/* The /metrics container port (EDGE_METRICS_ADDR), as a ports list item. Expects the root. */}}
{{- define "edge.metricsPort" -}}
{{- if .Values.metrics.enabled }}
- name: metrics
  containerPort: {{ .Values.metrics.port }}
  protocol: TCP
{{- end }}
{{- end }}

{{/* HorizontalPodAutoscaler of one component, when enabled. Expects dict "root" "component" "spec". */}}
{{- define "edge.hpa" -}}
{{- if .spec.autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "edge.componentName" . }}
  labels:
    {{- include "edge.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "edge.componentName" . }}
  minReplicas: {{ .spec.autoscaling.minReplicas }}
  maxReplicas: {{ .spec.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ .spec.autoscaling.targetCPUUtilizationPercentage }}
{{- end }}
{{- end }}

{{/* PodDisruptionBudget of one component, when enabled. Expects dict "root" "component" "spec". */}}
{{- define "edge.pdb" -}}
{{- if .spec.podDisruptionBudget.enabled }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "edge.componentName" . }}
  labels:
    {{- include "edge.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ .spec.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "edge.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/* The NetworkPolicy ingress rule admitting /metrics scrapes, when metrics are on. Expects the root. */}}
{{- define "edge.metricsIngress" -}}
{{- if .Values.metrics.enabled -}}
- ports:
    - port: metrics
      protocol: TCP
  {{- with .Values.networkPolicy.metricsFrom }}
  from:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}
{{- end }}
