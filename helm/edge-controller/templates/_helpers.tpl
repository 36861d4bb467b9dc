{{/*
Helpers shared by every template. The templates keep to a small subset of Go template syntax
(define/include, if/else/with/range, variables, toYaml | nindent, quote, default, dict, printf,
eq/ne/and/or/not) so that helm/../test/deploy can render them without a helm binary and compare
the result with deploy/k8s.
*/}}

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

{{/* One optional variable from the Secret; absent keys leave the variable unset. */}}
{{- define "edge.secretEnv" -}}
- name: {{ .key }}
  valueFrom:
    secretKeyRef:
      name: {{ include "edge.secretName" .root }}
      key: {{ .key }}
      optional: true
{{- end }}

{{/*
The variables a component's containers (the migration init container too) take from the
Secret. Each process gets only what it uses: the gateway opens no database, only auth
bootstraps the admin, only pki holds the key-encryption key. Expects dict "root" "component".
*/}}
{{- define "edge.secretEnvs" -}}
{{- if ne .component "gateway" }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_DATABASE_URL") }}
{{- end }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_NATS_URL") }}
{{- if eq .component "auth" }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_ADMIN_PASSWORD") }}
{{- end }}
{{- if eq .component "pki" }}
{{ include "edge.secretEnv" (dict "root" .root "key" "EDGE_KEY_ENCRYPTION_KEY") }}
{{- end }}
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
{{- with .spec.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
volumes:
  - name: data
    {{- toYaml .root.Values.dataVolume | nindent 4 }}
  - name: tmp
    emptyDir:
      sizeLimit: 64Mi
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
