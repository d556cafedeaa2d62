{{- define "trawler.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "trawler.labels" -}}
app.kubernetes.io/part-of: trawler
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "trawler.databaseSecret" -}}
{{ .Values.database.existingSecret | default (printf "%s-database" .Release.Name) }}
{{- end -}}
